module github.com/icecreamcorp/go-cancellation-workshop

go 1.26.0

tool (
	github.com/icecreamcorp/go-cancellation-workshop/internal/load/cmd/lab
	github.com/icecreamcorp/go-cancellation-workshop/internal/workshop
	github.com/rakyll/hey
	golang.org/x/tools/cmd/present
)

require (
	github.com/rakyll/hey v0.1.5
	github.com/stretchr/testify v1.12.1
	go.uber.org/goleak v1.3.0
	go.yaml.in/yaml/v3 v3.0.5
	golang.org/x/sync v0.25.0
	golang.org/x/sys v0.50.0
	golang.org/x/term v0.48.0
	golang.org/x/tools v0.52.0
)

require (
	github.com/yuin/goldmark v1.4.13 // indirect
	golang.org/x/net v0.61.0 // indirect
	golang.org/x/text v0.43.0 // indirect
)
