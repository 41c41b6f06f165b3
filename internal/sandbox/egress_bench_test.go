package sandbox

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/desk-dev/desk/internal/egress"
	"github.com/desk-dev/desk/internal/run"
)

// egressBench is a sandbox whose network reaches one upstream, named
// up.test in the sandbox, through desk's proxy, and the same upstream at
// 127.0.0.1 for the host's direct baseline.
type egressBench struct {
	e    *env
	port string
}

func newEgressBench(b *testing.B, h http.Handler, bandwidth int64) *egressBench {
	needTool(b, "curl")
	port := serve(b, h)
	n, err := egress.New(egress.Options{Workspace: "ws", Bandwidth: bandwidth})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { n.Close() })
	p, err := egress.Parse("allow up.test=127.0.0.1:" + port)
	if err != nil {
		b.Fatal(err)
	}
	e := newNetEnv(b, Options{Memory: 2 << 30}, n.Client(egress.Layer{Source: "ws", Policy: p}))
	e.ok("true") // the sandbox is warm
	return &egressBench{e: e, port: port}
}

// sandboxed times src in the sandbox (an execution, end to end).
func (eb *egressBench) sandboxed(b *testing.B, src string) time.Duration {
	t0 := time.Now()
	res := eb.e.run(src, run.ExecOptions{})
	d := time.Since(t0)
	if res.ExitCode != 0 {
		b.Fatalf("%q: exit %d: %s", src, res.ExitCode, res.Stderr)
	}
	return d
}

// direct times the same command on the host against 127.0.0.1.
func direct(b *testing.B, dir, src string) time.Duration {
	cmd := exec.Command("bash", "-c", src)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+dir, "npm_config_cache="+filepath.Join(dir, ".npm"))
	t0 := time.Now()
	out, err := cmd.CombinedOutput()
	d := time.Since(t0)
	if err != nil {
		b.Fatalf("%q: %v: %s", src, err, out)
	}
	return d
}

// BenchmarkEgress_SmallGETs: 1,000 GETs of 2 bytes by one curl (one kept-
// alive connection) in the sandbox through the proxy, and on the host
// straight to the upstream; reports both and the time added per request.
func BenchmarkEgress_SmallGETs(b *testing.B) {
	eb := newEgressBench(b, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) }), 0)
	var sb, host time.Duration
	for b.Loop() {
		sb += eb.sandboxed(b, "curl -sf 'http://up.test:"+eb.port+"/x[1-1000]' >/dev/null")
		host += direct(b, b.TempDir(), "curl -sf 'http://127.0.0.1:"+eb.port+"/x[1-1000]' >/dev/null")
	}
	n := float64(b.N)
	b.ReportMetric(sb.Seconds()*1e3/n, "sandbox-ms/1000req")
	b.ReportMetric(host.Seconds()*1e3/n, "direct-ms/1000req")
	b.ReportMetric((sb-host).Seconds()*1e6/n/1000, "added-µs/req")
	b.ReportMetric(float64(sb)/float64(host), "ratio")
}

// BenchmarkEgress_Download: 100 MiB by curl in the sandbox through the
// proxy, and on the host straight; with the default bandwidth limit (256
// MiB/s) and without one (the proxy's own cost).
func BenchmarkEgress_Download(b *testing.B) {
	const size = 100 << 20
	chunk := make([]byte, 1<<20)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", fmt.Sprint(size))
		for i := 0; i < size/len(chunk); i++ {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	})
	for _, c := range []struct {
		name string
		bw   int64
	}{{"default-limit", 0}, {"no-limit", 1 << 40}} {
		b.Run(c.name, func(b *testing.B) {
			eb := newEgressBench(b, h, c.bw)
			var sb, host time.Duration
			for b.Loop() {
				sb += eb.sandboxed(b, "curl -sf -o /dev/null http://up.test:"+eb.port+"/big")
				host += direct(b, b.TempDir(), "curl -sf -o /dev/null http://127.0.0.1:"+eb.port+"/big")
			}
			n := float64(b.N)
			b.ReportMetric(size/(1<<20)/(sb.Seconds()/n), "sandbox-MiB/s")
			b.ReportMetric(size/(1<<20)/(host.Seconds()/n), "direct-MiB/s")
			b.ReportMetric(float64(host)/float64(sb), "throughput-ratio")
		})
	}
}

// BenchmarkEgress_NPMInstall: npm install of an app depending on 200
// packages from the test's registry, in the sandbox through the proxy
// (into /workspace, a fresh cache) and on the host straight (a fresh
// directory and cache).
func BenchmarkEgress_NPMInstall(b *testing.B) {
	needTool(b, "npm")
	reg := &npmRegistry{pkgs: map[string][]byte{}, deps: map[string]map[string]string{}}
	deps := map[string]string{}
	for i := range 200 {
		name := fmt.Sprintf("p%03d", i)
		reg.add(b, name, nil, "module.exports = "+fmt.Sprint(i)+";")
		deps[name] = "1.0.0"
	}
	pj, _ := json.Marshal(map[string]any{"name": "app", "version": "1.0.0", "private": true, "dependencies": deps})
	eb := newEgressBench(b, reg, 0)
	if err := os.WriteFile(filepath.Join(eb.e.wsDir, "package.json"), pj, 0o644); err != nil {
		b.Fatal(err)
	}
	flags := " --no-audit --no-fund --loglevel=error --registry=http://"
	var sb, host time.Duration
	for i := 0; b.Loop(); i++ {
		dir := fmt.Sprintf("app%d", i)
		b.StopTimer()
		eb.e.ok("mkdir " + dir + " && cp /workspace/package.json " + dir + "/")
		b.StartTimer()
		sb += eb.sandboxed(b, "cd "+dir+" && npm install --cache /tmp/npm-"+dir+flags+"up.test:"+eb.port+"/ && test -f node_modules/p199/index.js")
		hd := b.TempDir()
		if err := os.WriteFile(filepath.Join(hd, "package.json"), pj, 0o644); err != nil {
			b.Fatal(err)
		}
		host += direct(b, hd, "npm install"+flags+"127.0.0.1:"+eb.port+"/ && test -f node_modules/p199/index.js")
	}
	n := float64(b.N)
	b.ReportMetric(sb.Seconds()/n, "sandbox-s")
	b.ReportMetric(host.Seconds()/n, "host-s")
	b.ReportMetric(float64(sb)/float64(host), "ratio")
}

// needTool skips a benchmark without /usr/bin/name.
func needTool(b *testing.B, name string) {
	if _, err := os.Stat("/usr/bin/" + name); err != nil {
		b.Skipf("no /usr/bin/%s for the sandbox", name)
	}
}
