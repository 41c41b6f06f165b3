package initproc

import (
	"fmt"
	"io"
	"net"
	"strconv"
	"sync"

	"github.com/desk-dev/desk/internal/sandbox/wire"
)

// maxForwarded bounds the connections the egress forwarder carries at once
// (each costs two goroutines and two copy buffers of the init's memory);
// past it a connection is closed at once.
const maxForwarded = 256

// forwardEgress listens on 127.0.0.1:port of the sandbox (whose network
// namespace has only lo) and carries each connection, bytes only, to the
// host's egress proxy at wire.ProxySocket, a Unix socket the backend binds
// into the sandbox. The proxy, not the init, decides what may pass.
func forwardEgress(port int) error {
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return fmt.Errorf("listen for the egress proxy: %w", err)
	}
	slots := make(chan struct{}, maxForwarded)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				if ne, ok := err.(net.Error); ok && ne.Timeout() {
					continue
				}
				return
			}
			select {
			case slots <- struct{}{}:
			default:
				c.Close()
				continue
			}
			go func() {
				defer func() { <-slots }()
				forward(c)
			}()
		}
	}()
	return nil
}

// forward carries one connection to the proxy's socket, each end's EOF
// passed on as a half-close.
func forward(c net.Conn) {
	defer c.Close()
	up, err := net.Dial("unix", wire.ProxySocket)
	if err != nil {
		return
	}
	defer up.Close()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		io.Copy(up, c)
		up.(*net.UnixConn).CloseWrite()
	}()
	io.Copy(c, up)
	c.(*net.TCPConn).CloseWrite()
	wg.Wait()
}
