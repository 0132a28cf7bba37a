// Package platform is the rest of Ice Cream Corp's platform, the part that is
// not the menu: a stock poller, an order pipeline, a stock feed over TCP, a
// stock import, a report generator run as a child process, a service that
// shuts down on Ctrl-C, a fan-out to the warehouses, a worker pool and a
// shared call to a slow upstream.
//
// Each file is one family of Go's standard library (and golang.org/x/sync)
// that honours a context.Context: timers, channels, net, io, os/exec,
// signals, errgroup, semaphore and singleflight. Together they are the talk's
// table of the APIs that accept an AbortSignal, done the Go way.
package platform
