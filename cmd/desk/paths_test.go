package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/desk-dev/desk/client"
	deskrun "github.com/desk-dev/desk/internal/run"
	"github.com/desk-dev/desk/internal/sandbox/sandboxtest"
	"github.com/desk-dev/desk/internal/testenv"
)

// deskCommand is the desk CLI as a process of its own (the test binary),
// finding the server as the in-process commands do (the environment and
// the config file).
func deskCommand(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), envTestRunDesk+"=1")
	return cmd
}

// startedClient starts desk with args as a process and returns it once its
// standard output has printed want. Its standard input is a pipe kept open
// (a stdin stream in flight) until the test ends.
func startedClient(t *testing.T, want string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := deskCommand(t, args...)
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { inW.Close() })
	cmd.Stdin = inR
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var errb testenv.SyncBuffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	inR.Close()
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || line != want {
		t.Fatalf("desk %s printed %q, %v (stderr %s)", strings.Join(args, " "), line, err, errb.String())
	}
	return cmd
}

// TestExec_ForegroundClientKilled kills a real desk exec process (SIGKILL,
// with its event stream and its stdin stream open): the server kills the
// execution with SIGHUP once the grace period has passed with nobody
// following it. An execution started with --detach outlives its desk exec.
func TestExec_ForegroundClientKilled(t *testing.T) {
	ts := newTestServerRun(t, deskrun.Options{ForegroundGrace: 300 * time.Millisecond})
	ts.use(t)
	mustDesk(t, nil, "ws", "create", "demo")
	l, err := ts.h.Acquire(bg, "demo")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	rt := l.Workspace().Runtime()
	// A detached one first: it must still run after the foreground one's
	// hang-up, which comes later than its own would.
	mustDesk(t, nil, "exec", "--detach", "--id", "bg", "demo", "--", "block")
	cmd := startedClient(t, "started\n", "exec", "--id", "fg", "demo", "--", "echo started\nblock")
	x, ok := rt.Lookup("fg")
	if !ok || !x.Info().Foreground || !x.Info().StdinStream {
		t.Fatalf("fg: running %v, %+v", ok, x.Info())
	}
	cmd.Process.Kill()
	cmd.Wait()
	ctx, cancel := context.WithTimeout(bg, time.Minute) // hang guard
	defer cancel()
	res, err := x.Wait(ctx)
	if err != nil || res.Status != deskrun.StatusCancelled || res.Signal != "SIGHUP" || !strings.Contains(res.Error, "nobody followed for 300ms") {
		t.Fatalf("fg after its client was killed: %s %s %q, %v", res.Status, res.Signal, res.Error, err)
	}
	b, ok := rt.Lookup("bg")
	if !ok || b.Info().Foreground {
		t.Fatalf("bg (--detach) is not running on: %v", ok)
	}
	b.Kill(deskrun.SIGKILL)
}

// TestServe_PathsAndStreams runs a real desk serve (with the sandbox
// backend where the host can run it) and checks the path model end to end
// — a relative path given to desk fs, the HTTP API, a tool, MCP and exec
// --cwd is one file, and the sandbox sees what desk fs put into /workspace
// — and stdin streams of every backend, tar c | desk exec -- tar x
// included.
func TestServe_PathsAndStreams(t *testing.T) {
	t.Setenv(envConfig, filepath.Join(t.TempDir(), "config.json"))
	haveSandbox := sandboxtest.Available() == nil
	if !haveSandbox && testenv.Sandbox.Required() {
		t.Fatalf("%s=1, but %v", testenv.Sandbox, sandboxtest.Available())
	}
	data := filepath.Join(t.TempDir(), "data")
	if haveSandbox {
		data, _ = sandboxData(t)
	}
	url, _, _ := startServe(t, "--addr", "127.0.0.1:0", "--data", data, "--log-level", "warn")
	cf, _, err := readConfig()
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.New(url, cf.Token, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	mustDesk(t, nil, "ws", "create", "demo")
	t.Logf("sandbox backend: %v", haveSandbox)

	// The README's first steps, on a fresh workspace: /workspace is there
	// before anything ran in it.
	mustDesk(t, []byte("hi\n"), "fs", "-w", "demo", "put", "/workspace/hello.txt")
	if got := mustDesk(t, nil, "fs", "-w", "demo", "cat", "hello.txt"); got != "hi\n" {
		t.Fatalf("cat hello.txt = %q", got)
	}

	t.Run("one path", func(t *testing.T) {
		const rel, dir, abs = "notes/same.txt", "notes", "/workspace/notes/same.txt"
		// Every surface reads the file by its relative path.
		check := func(want string) {
			t.Helper()
			if got := mustDesk(t, nil, "fs", "-w", "demo", "cat", rel); got != want {
				t.Errorf("desk fs cat %s = %q, want %q", rel, got, want)
			}
			req, _ := http.NewRequest("GET", url+"/v1/workspaces/demo/files/"+rel, nil)
			req.Header.Set("Authorization", "Bearer "+cf.Token)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 || string(b) != want || resp.Header.Get("Content-Type") != "text/plain; charset=utf-8" {
				t.Errorf("GET files/%s = %d %q (%s), want %q", rel, resp.StatusCode, b, resp.Header.Get("Content-Type"), want)
			}
			tr, err := c.CallTool(bg, "demo", "read", json.RawMessage(`{"path":"`+rel+`"}`), nil)
			var ro struct{ Path, Text string }
			if err == nil {
				json.Unmarshal(tr.Structured, &ro)
			}
			if err != nil || tr.IsError || ro.Path != abs || ro.Text != "1\t"+want {
				t.Errorf("read tool %s = %+v, %v; want %q", rel, ro, err, want)
			}
			if got := mustDesk(t, nil, "exec", "demo", "--cwd", dir, "--", "cat same.txt"); got != want {
				t.Errorf("exec --cwd %s cat same.txt = %q, want %q", dir, got, want)
			}
		}
		mustDesk(t, []byte("1 fs\n"), "fs", "-w", "demo", "put", "-p", rel)
		check("1 fs\n")
		if _, err := c.WriteFile(bg, "demo", rel, strings.NewReader("2 api\n"), client.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
		check("2 api\n")
		if tr, err := c.CallTool(bg, "demo", "write", json.RawMessage(`{"path":"`+rel+`","content":"3 tool\n"}`), nil); err != nil || tr.IsError {
			t.Fatalf("write tool: %+v, %v", tr, err)
		}
		check("3 tool\n")
		mustDesk(t, nil, "exec", "demo", "--cwd", dir, "--", "echo 4 exec > same.txt")
		check("4 exec\n")
		// MCP: the resource of the relative path, and the exec tool in
		// /workspace.
		cs, stop := stdioSession(t, "mcp", "--workspace", "demo")
		rr, err := cs.ReadResource(bg, &sdk.ReadResourceParams{URI: "desk://demo/" + rel})
		if err != nil || rr.Contents[0].Text != "4 exec\n" {
			t.Errorf("MCP resource desk://demo/%s: %v", rel, err)
		}
		if got, isErr := callText(t, cs, "exec", map[string]any{"command": "cat " + rel, "backend": "shell"}); isErr || !strings.HasPrefix(got, "4 exec\n") {
			t.Errorf("MCP exec cat %s: %q", rel, got)
		}
		stop()
		if haveSandbox {
			// The sandbox sees what desk fs put into /workspace, by both paths.
			if got := mustDesk(t, nil, "exec", "demo", "--backend", "sandbox", "--", "cat /workspace/hello.txt hello.txt; cd "+dir+" && cat same.txt"); got != "hi\nhi\n4 exec\n" {
				t.Errorf("sandbox reads %q", got)
			}
			if got := mustDesk(t, nil, "exec", "demo", "--backend", "sandbox", "--cwd", dir, "--", "pwd; cat same.txt; stat -c '%a %U' /workspace"); got != "/workspace/notes\n4 exec\n755 root\n" {
				t.Errorf("sandbox --cwd %s: %q", dir, got)
			}
		}
	})

	t.Run("stdin streams", func(t *testing.T) {
		// 24 MiB of random bytes (48 times the old 512 KiB cap, not UTF-8)
		// through each backend, as desk exec's own standard input.
		in := make([]byte, 24<<20)
		rand.Read(in)
		sum := fmt.Sprintf("%x", sha256.Sum256(in))
		if got := mustDesk(t, in, "exec", "demo", "--backend", "shell", "--", "sha256sum"); got != sum+"  -\n" {
			t.Errorf("shell: %q, want %s", got, sum)
		}
		// The js backend: 4 MiB (8 times the old cap; its engine holds 64 MiB,
		// and node:crypto's Hash keeps what it is given until digest).
		jsIn := in[:4<<20]
		js := `import { createHash } from 'node:crypto';
export default () => new Promise((done) => {
  const h = createHash('sha256'); let n = 0;
  process.stdin.on('data', (b) => { n += b.length; h.update(b); });
  process.stdin.on('end', () => done(n + ' ' + h.digest('hex')));
});`
		if got, want := mustDesk(t, jsIn, "exec", "demo", "--backend", "js", "--", js), fmt.Sprintf("\"%d %x\"\n", len(jsIn), sha256.Sum256(jsIn)); got != want {
			t.Errorf("js: %q, want %q", got, want)
		}
		if haveSandbox {
			if got := mustDesk(t, in, "exec", "demo", "--backend", "sandbox", "--", "sha256sum; wc -c < /dev/null"); got != sum+"  -\n0\n" {
				t.Errorf("sandbox: %q, want %s", got, sum)
			}
		}
	})

	t.Run("tar pipe", func(t *testing.T) {
		// A host tree, tarred by the real tar and piped into desk exec -- tar x
		// (real processes), on each backend that has tar.
		src := t.TempDir()
		for i := range 200 {
			b := make([]byte, 1000+i*97)
			rand.Read(b)
			p := filepath.Join(src, fmt.Sprintf("d%d", i%7), fmt.Sprintf("f%03d", i))
			os.MkdirAll(filepath.Dir(p), 0o755)
			os.WriteFile(p, b, 0o644)
		}
		big := make([]byte, 12<<20)
		rand.Read(big)
		os.WriteFile(filepath.Join(src, "big.bin"), big, 0o644)
		exe, _ := os.Executable()
		hostSums, err := exec.Command("bash", "-c", "cd "+src+" && find . -type f | sort | xargs sha256sum").Output()
		if err != nil {
			t.Fatal(err)
		}
		backends := []string{"shell"}
		if haveSandbox {
			backends = append(backends, "sandbox")
		}
		for _, be := range backends {
			dir := "tree-" + be
			mustDesk(t, nil, "fs", "-w", "demo", "mkdir", dir)
			pipe := exec.Command("bash", "-c", `set -o pipefail; tar -C "$1" -cf - . | "$2" exec -w demo --backend "$3" --cwd "$4" -- tar xf -`, "bash", src, exe, be, dir)
			pipe.Env = append(os.Environ(), envTestRunDesk+"=1")
			if out, err := pipe.CombinedOutput(); err != nil {
				t.Fatalf("%s: tar c | desk exec -- tar x: %v\n%s", be, err, out)
			}
			got := mustDesk(t, nil, "exec", "demo", "--backend", "shell", "--cwd", dir, "--", "find . -type f | sort | xargs sha256sum")
			if got != string(hostSums) {
				t.Errorf("%s: the tree in the workspace differs from the host's:\n%s\nwant\n%s", be, got, hostSums)
			}
		}
	})

	t.Run("sandbox client killed", func(t *testing.T) {
		if !haveSandbox {
			testenv.Need(t, testenv.Sandbox, sandboxtest.Available()) // a failure under DESK_REQUIRE_SANDBOX
		}
		cmd := startedClient(t, "started\n", "exec", "--id", "sbfg", "demo", "--backend", "sandbox", "--", "echo started; exec sleep 1000")
		cmd.Process.Kill()
		cmd.Wait()
		// The server's default grace period (10 s) passes; the hang guard
		// is far beyond it.
		var res client.Result
		pollUntil(t, 2*time.Minute, "the execution of a killed desk exec to end", func() bool {
			res, err = c.GetExecution(bg, "demo", "sbfg")
			return err != nil || res.Status != client.StatusRunning
		})
		if err != nil || res.Status != client.StatusCancelled || res.Signal != "SIGHUP" || !strings.Contains(res.Error, "nobody followed") {
			t.Errorf("sandbox execution of a killed client: %+v, %v", res.Execution, err)
		}
	})
}
