package load

import (
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseFlags(t *testing.T) {
	t.Run("by default shrinks the talk's durations to a quarter, 5s of load per version, every version", func(t *testing.T) {
		s, err := parseFlags(nil, io.Discard)
		require.NoError(t, err, "parseFlags()")
		assert.Equal(t, 250*time.Millisecond, s.Timeout, "the menus' -timeout")
		assert.Equal(t, 2500*time.Millisecond, s.MaxDelay, "the stock service's -max-delay")
		assert.Equal(t, 5*time.Second, s.Duration, "load per version")
		assert.Equal(t, 100, s.Conns, "connections")
		assert.Equal(t, versionNames(), s.Versions, "versions")
		assert.False(t, s.JSON || s.Own, "-json and -own are off by default")
		assert.Empty(t, s.HTML, "-html is off by default")
	})

	t.Run("-scale 1 -duration 60s is the talk's setup", func(t *testing.T) {
		s, err := parseFlags([]string{"-scale", "1", "-duration", "60s", "-versions", "v3, v1,v3"}, io.Discard)
		require.NoError(t, err, "parseFlags(-scale 1 -duration 60s -versions 'v3, v1,v3')")
		assert.Equal(t, time.Second, s.Timeout, "the menus' -timeout")
		assert.Equal(t, 10*time.Second, s.MaxDelay, "the stock service's -max-delay")
		assert.Equal(t, time.Minute, s.Duration, "-duration is taken as it is, not scaled")
		assert.Equal(t, []string{"v3", "v1"}, s.Versions, "versions, each once")
	})

	for _, args := range [][]string{
		{"-versions", "v4"},
		{"-scale", "0"},
		{"-scale", "-1"},
		{"-c", "0"},
		{"-duration", "-1s"},
		{"v1"},
	} {
		t.Run("refuses "+args[len(args)-1], func(t *testing.T) {
			_, err := parseFlags(args, io.Discard)
			assert.Error(t, err, "parseFlags(%q)", args)
		})
	}
}
