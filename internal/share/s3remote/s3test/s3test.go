package s3test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"runtime"

	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/desk-dev/desk/internal/testenv"
)

// The gateway's root credentials and region.
const (
	Access = "deskTestAccessKey"
	Secret = "deskTestSecretKey0123456789"
	Region = "us-east-1"
)

var (
	gwOnce sync.Once
	gwBin  string
	gwErr  error
)

// moduleDir is the pinning module's directory.
func moduleDir() (string, error) {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "", errors.New("find the s3test package's directory")
	}
	return filepath.Join(filepath.Dir(file), "..", "..", "testdata", "versitygw"), nil
}

// gatewayBinary returns the versitygw binary: built once into the user's
// cache directory under a name that hashes the pinning module's go.mod and
// go.sum (so a new pin builds anew), through a temporary name and a rename
// (test processes building at once do not clash).
func gatewayBinary(t testing.TB) string {
	t.Helper()
	gwOnce.Do(func() { gwBin, gwErr = buildGateway(testenv.GoTool(t)) })
	if gwErr != nil {
		t.Fatal(gwErr)
	}
	return gwBin
}

func buildGateway(goTool string) (string, error) {
	mod, err := moduleDir()
	if err != nil {
		return "", err
	}
	h := sha256.New()
	for _, f := range []string{"go.mod", "go.sum"} {
		b, err := os.ReadFile(filepath.Join(mod, f))
		if err != nil {
			return "", err
		}
		h.Write(b)
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "desk-test")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "versitygw-"+hex.EncodeToString(h.Sum(nil))[:16])
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	tmp := fmt.Sprintf("%s.%d.tmp", bin, os.Getpid())
	cmd := exec.Command(goTool, "build", "-C", mod, "-o", tmp, "github.com/versity/versitygw/cmd/versitygw")
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=readonly -buildvcs=false")
	if out, err := cmd.CombinedOutput(); err != nil {
		os.Remove(tmp)
		return "", fmt.Errorf("build versitygw: %v\n%s", err, out)
	}
	if err := os.Rename(tmp, bin); err != nil {
		return "", err
	}
	return bin, nil
}

// Gateway is a running versitygw.
type Gateway struct {
	URL  string // http://127.0.0.1:PORT
	Root string // the POSIX backend's directory: buckets are its subdirectories
}

// Start starts versitygw on a free loopback port and waits until it
// accepts connections; t's cleanup stops it.
func Start(t testing.TB) *Gateway {
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
	cmd := exec.Command(bin, "--access", Access, "--secret", Secret, "--region", Region, "--port", addr, "--quiet", "posix", root)
	out := &testenv.SyncBuffer{}
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
	return &Gateway{URL: "http://" + addr, Root: root}
}

// Client is an S3 client of the gateway with its root credentials.
func (g *Gateway) Client() *s3.Client {
	return s3.New(s3.Options{
		Region: Region, BaseEndpoint: aws.String(g.URL), UsePathStyle: true,
		Credentials: credentials.NewStaticCredentialsProvider(Access, Secret, ""),
	})
}

// Bucket creates a bucket.
func (g *Gateway) Bucket(t testing.TB, name string) {
	t.Helper()
	if _, err := g.Client().CreateBucket(context.Background(), &s3.CreateBucketInput{Bucket: aws.String(name)}); err != nil {
		t.Fatal(err)
	}
}
