package main

import (
	"testing"

	"github.com/icecreamcorp/go-cancellation-workshop/internal/menutest"
)

// TestMain runs the tests with http.DefaultTransport guarded: a menu that
// calls the stock service with http.Get, not with its client, gets an error
// at once instead of a DNS lookup that would crash the tests.
func TestMain(m *testing.M) { menutest.Main(m) }
