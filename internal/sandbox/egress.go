package sandbox

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"github.com/desk-dev/desk/internal/sandbox/wire"
	"io"
	"log"
	"maps"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/desk-dev/desk/internal/egress"
)

// egressSocket is the bundle's file the egress proxy listens on, bound at
// wire.ProxySocket in the sandbox.
const egressSocket = "egress.sock"

// startEgress serves the sandbox's egress proxy on the bundle's socket:
// each request names its execution's network (run.Job.Net) by the
// credential netEnv put in that execution's proxy settings.
func (x *box) startEgress() error {
	p := filepath.Join(x.bundle.dir, egressSocket)
	ln, err := listenUnix(p)
	if err != nil {
		return fmt.Errorf("listen for the egress proxy: %w", err)
	}
	// The sandbox's root (Options.HostID on the host) connects to it.
	if err := os.Chmod(p, 0o666); err != nil {
		ln.Close()
		return fmt.Errorf("listen for the egress proxy: %w", err)
	}
	proxy := egress.NewProxy(func(cred string) http.RoundTripper {
		if rt, ok := x.nets.Load(cred); ok {
			return rt.(http.RoundTripper)
		}
		return nil
	}, x.b.log)
	x.egress = &http.Server{Handler: proxy, ReadHeaderTimeout: 30 * time.Second, IdleTimeout: 2 * time.Minute,
		ErrorLog: log.New(io.Discard, "", 0)}
	go x.egress.Serve(&limitListener{Listener: ln, slots: make(chan struct{}, maxProxyConns)})
	return nil
}

// maxProxyConns bounds the connections to a sandbox's proxy socket at once
// (the init's forwarder carries at most 256; programs may also connect to
// the socket itself); past it a connection is closed at once.
const maxProxyConns = 512

// limitListener closes connections past its slots.
type limitListener struct {
	net.Listener
	slots chan struct{}
}

func (l *limitListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		select {
		case l.slots <- struct{}{}:
			return &slotConn{Conn: c, release: func() { <-l.slots }}, nil
		default:
			c.Close()
		}
	}
}

// slotConn gives its slot back once, when closed.
type slotConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *slotConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}

// listenUnix listens on the Unix socket path, through the directory's
// /proc/self/fd link when the path is too long for a socket address.
func listenUnix(path string) (net.Listener, error) {
	if len(path) < 100 {
		return net.Listen("unix", path)
	}
	d, err := os.OpenFile(filepath.Dir(path), unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	ln, err := net.Listen("unix", "/proc/self/fd/"+strconv.Itoa(int(d.Fd()))+"/"+filepath.Base(path))
	if ul, ok := ln.(*net.UnixListener); ok {
		ul.SetUnlinkOnClose(false) // the bundle's removal removes it
	}
	return ln, err
}

// stopEgress closes the proxy and its connections.
func (x *box) stopEgress() {
	if x.egress != nil {
		x.egress.Close()
	}
}

// netEnv gives a program the network of its execution (or shell) while it
// runs: with rt (run.Job.Net, ShellOptions.Net), a credential naming it to
// the proxy and the proxy settings carrying that credential are added to
// env (a copy); done forgets the credential, so that what outlives the
// execution has no network. Without rt the environment is env and there is
// no network.
func (x *box) netEnv(rt http.RoundTripper, env map[string]string) (map[string]string, func()) {
	if rt == nil || x.egress == nil {
		return env, func() {}
	}
	var b [16]byte
	rand.Read(b[:])
	cred := hex.EncodeToString(b[:])
	x.nets.Store(cred, rt)
	out := maps.Clone(env)
	if out == nil {
		out = map[string]string{}
	}
	maps.Copy(out, ProxyEnv("http://desk:"+cred+"@127.0.0.1:"+strconv.Itoa(x.b.opts.ProxyPort)))
	if ca, ok := rt.(interface{ CAPEM() []byte }); ok {
		if pem := ca.CAPEM(); pem != nil {
			if err := x.trust(pem); err != nil {
				x.b.log.Warn("sandbox: cannot add the egress CA to the trusted certificates", "workspace", x.ws.Name, "err", err)
			} else {
				maps.Copy(out, caEnv())
			}
		}
	}
	return out, func() { x.nets.Delete(cred) }
}

// ProxyEnv is the environment that points the common tools at the proxy URL
// u: the proxy variables in both cases (curl, wget, git, Go, pip, Python),
// npm's own, and Node's switch to honour them (Node 24 and later). NO_PROXY
// keeps the sandbox's own loopback direct.
func ProxyEnv(u string) map[string]string {
	return map[string]string{
		"HTTP_PROXY": u, "HTTPS_PROXY": u, "http_proxy": u, "https_proxy": u,
		"NO_PROXY": "localhost,127.0.0.1,::1", "no_proxy": "localhost,127.0.0.1,::1",
		"npm_config_proxy": u, "npm_config_https_proxy": u,
		"PIP_PROXY":          u,
		"NODE_USE_ENV_PROXY": "1",
	}
}

// caBundle is the bundle's file of trusted certificates, bound at caTarget:
// the host's system bundle, and the workspace's egress CA once an execution
// brings one (egress.Client.CAPEM).
const (
	caBundle     = "ca.pem"
	caTarget     = "/.desk/ca.pem"
	systemBundle = "/etc/ssl/certs/ca-certificates.crt" // Debian's; bound over in the sandbox too
)

// egressMounts writes the bundle's trusted certificates (the host's system
// bundle) and returns the mounts of the egress: the proxy's socket, the
// bundle at /.desk/ca.pem and, with the host's userland, over the system
// bundle's path.
func egressMounts(dir string, hostUserland bool) ([]ociMount, error) {
	sys, err := os.ReadFile(systemBundle)
	if err != nil && !os.IsNotExist(err) {
		return nil, fmt.Errorf("read %s: %w", systemBundle, err)
	}
	p := filepath.Join(dir, caBundle)
	if err := os.WriteFile(p, sys, 0o644); err != nil {
		return nil, fmt.Errorf("write bundle: %w", err)
	}
	ms := []ociMount{roBind(filepath.Join(dir, egressSocket), wire.ProxySocket), roBind(p, caTarget)}
	if hostUserland && sys != nil {
		ms = append(ms, roBind(p, systemBundle))
	}
	return ms, nil
}

// trust adds the CA certificate pem to the sandbox's trusted certificates
// (once: the file is rewritten in place, so the bind mounts see it).
func (x *box) trust(pem []byte) error {
	x.trustMu.Lock()
	defer x.trustMu.Unlock()
	if bytes.Equal(x.trusted, pem) {
		return nil
	}
	sys, err := os.ReadFile(systemBundle)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	all := append(append(sys, '\n'), pem...)
	if err := os.WriteFile(filepath.Join(x.bundle.dir, caBundle), all, 0o644); err != nil {
		return err
	}
	x.trusted = bytes.Clone(pem)
	return nil
}

// caEnv points the common tools at the sandbox's trusted certificates
// (the system bundle's path is bound to the same file too).
func caEnv() map[string]string {
	return map[string]string{
		"SSL_CERT_FILE": caTarget, "CURL_CA_BUNDLE": caTarget, "REQUESTS_CA_BUNDLE": caTarget,
		"PIP_CERT": caTarget, "GIT_SSL_CAINFO": caTarget, "NODE_EXTRA_CA_CERTS": caTarget,
	}
}
