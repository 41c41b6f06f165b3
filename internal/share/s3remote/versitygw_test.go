package s3remote_test

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/desk-dev/desk/internal/testenv"
)

// The S3 server the tests use: versitygw (github.com/versity/versitygw,
// pinned in ../testdata/versitygw/go.mod) with its POSIX backend on a
// temporary directory, built once per test binary and started per test on
// a loopback port.
const (
	gwAccess = "deskTestAccessKey"
	gwSecret = "deskTestSecretKey0123456789"
	gwRegion = "us-east-1"
)

var (
	gwOnce sync.Once
	gwBin  string
	gwErr  error
)

// gatewayBinary builds versitygw (the Go build cache makes later builds a
// link only).
func gatewayBinary(t testing.TB) string {
	t.Helper()
	gwOnce.Do(func() {
		dir, err := os.MkdirTemp("", "desk-versitygw-")
		if err != nil {
			gwErr = err
			return
		}
		gwBin = filepath.Join(dir, "versitygw")
		mod, err := filepath.Abs(filepath.Join("..", "testdata", "versitygw"))
		if err != nil {
			gwErr = err
			return
		}
		cmd := exec.Command(testenv.GoTool(t), "build", "-C", mod, "-o", gwBin, "github.com/versity/versitygw/cmd/versitygw")
		cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=readonly")
		if out, err := cmd.CombinedOutput(); err != nil {
			gwErr = fmt.Errorf("build versitygw: %v\n%s", err, out)
		}
	})
	if gwErr != nil {
		t.Fatal(gwErr)
	}
	return gwBin
}

// gateway is a running versitygw.
type gateway struct {
	URL  string // http://127.0.0.1:PORT
	Root string // the POSIX backend's directory: buckets are its subdirectories
}

// startGateway starts versitygw on a free loopback port and waits until it
// accepts connections. Cleanup stops it.
func startGateway(t *testing.T) *gateway {
	t.Helper()
	bin := gatewayBinary(t)
	root := t.TempDir()
	// A free port: bind one, let it go, give it to the gateway (it binds
	// with SO_REUSEADDR; a clash fails the start visibly, not silently).
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.Command(bin, "--access", gwAccess, "--secret", gwSecret, "--region", gwRegion, "--port", addr, "--quiet", "posix", root)
	out := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
	})
	// Wait for the listener: each refused dial returns at once; the
	// deadline only guards against a hang.
	deadline := time.Now().Add(60 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			break
		}
		select {
		case err := <-exited:
			t.Fatalf("versitygw exited before listening: %v\n%s", err, out.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("versitygw does not listen on %s: %v\n%s", addr, err, out.String())
		}
		time.Sleep(10 * time.Millisecond) // between connection attempts, not a synchronisation
	}
	return &gateway{URL: "http://" + addr, Root: root}
}

type syncBuffer struct {
	mu sync.Mutex
	b  []byte
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.b = append(b.b, p...)
	return len(p), nil
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.b)
}


