package sandbox

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"maps"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"golang.org/x/sys/unix"

	"github.com/desk-dev/desk/internal/egress"
	"github.com/desk-dev/desk/internal/run"
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
	x.egress = &http.Server{Handler: proxy, ReadHeaderTimeout: 30 * time.Second, ErrorLog: nil}
	go x.egress.Serve(ln)
	return nil
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

// netEnv gives a program the network of its execution while it runs: with
// job.Net, a credential naming it to the proxy and the proxy settings
// carrying that credential are added to env (a copy); done forgets the
// credential, so that what outlives the execution has no network. Without
// job.Net the environment is env and there is no network.
func (x *box) netEnv(job *run.Job, env map[string]string) (map[string]string, func()) {
	if job.Net == nil || x.egress == nil {
		return env, func() {}
	}
	var b [16]byte
	rand.Read(b[:])
	cred := hex.EncodeToString(b[:])
	x.nets.Store(cred, job.Net)
	out := maps.Clone(env)
	if out == nil {
		out = map[string]string{}
	}
	maps.Copy(out, ProxyEnv("http://desk:"+cred+"@127.0.0.1:"+strconv.Itoa(x.b.opts.ProxyPort)))
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
