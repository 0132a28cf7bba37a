package solutions

// The packages the steps' tests build on, imported here for one reason: so
// that `go test ./solutions/...` compiles them before it starts this
// package's test binary. The integrity check then runs its own go test over
// every starter, which finds them in the build cache instead of compiling
// them a second time beside the outer go test — on a fresh clone, tens of
// seconds of CPU. A package missing from this list costs time, not
// correctness.

import (
	_ "encoding/json"
	_ "expvar"
	_ "log/slog"
	_ "net/http"
	_ "net/http/httptest"
	_ "testing/synctest"

	_ "github.com/icecreamcorp/go-cancellation-workshop/internal/fakestock"
	_ "github.com/icecreamcorp/go-cancellation-workshop/internal/inproc"
	_ "github.com/icecreamcorp/go-cancellation-workshop/internal/leakcheck"
	_ "github.com/icecreamcorp/go-cancellation-workshop/internal/menutest"
	_ "github.com/icecreamcorp/go-cancellation-workshop/internal/runtest"
	_ "github.com/stretchr/testify/assert"
	_ "go.uber.org/goleak"
)
