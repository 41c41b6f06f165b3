package testenv

import (
	"net"
	"testing"
)

// ClosedPort returns a loopback TCP port nothing listens on: one the
// kernel gave a listener that is closed again (a connection to it is
// refused, unless another listener takes it meanwhile).
func ClosedPort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	return port
}
