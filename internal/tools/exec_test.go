package tools

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/desk-dev/desk/internal/run"
)

func TestExec(t *testing.T) {
	e := newEnv(t, Options{MaxExecOutput: 40})
	tests := []struct {
		name, in string
		wants    []string
		check    func(*ExecOutput) bool
	}{
		{"echo", `{"command":"echo hello"}`, []string{"hello\n[exit code 0 · shell backend · "}, func(o *ExecOutput) bool { return o.Stdout == "hello\n" && o.Status == "completed" }},
		{"exit code and stderr", `{"command":"echo oops >&2; exit 3"}`, []string{"[stderr]\noops\n[exit code 3 "}, func(o *ExecOutput) bool { return o.ExitCode == 3 && o.Stderr == "oops\n" }},
		{"stdin", `{"command":"cat","stdin":"from stdin"}`, []string{"from stdin\n"}, nil},
		{"env", `{"command":"echo $GREETING","env":{"GREETING":"hi there"}}`, []string{"hi there\n"}, nil},
		{"cwd relative", `{"command":"pwd","cwd":"sub"}`, []string{"/workspace/sub\n"}, nil},
		{"cwd absolute", `{"command":"pwd","cwd":"/"}`, []string{"/\n"}, nil},
		{"changes", `{"command":"echo x > made.txt"}`, []string{"[created: /workspace/made.txt]"}, func(o *ExecOutput) bool { return o.Changes != nil && len(o.Changes.Created) == 1 }},
		{"output cap", `{"command":"for i in $(seq 1 100); do echo line$i; done"}`, []string{"line1\nline2\nline3\n[... 659 bytes elided ...]\nline99\nline100\n", "659 bytes of stdout"}, func(o *ExecOutput) bool {
			return o.StdoutElided == 659 && o.StdoutBytes == 692
		}},
		{"timeout", `{"command":"sleep 5","timeout":0.2}`, []string{"timed out (exit code 124)"}, func(o *ExecOutput) bool { return o.Status == "timed-out" && o.ExitCode == 124 }},
		{"auto", `{"command":"echo auto","backend":"auto"}`, []string{"auto\n", "shell backend"}, func(o *ExecOutput) bool { return o.Route != "" }},
	}
	e.fs.MkdirAll(e.ctx, "/workspace/sub", 0o755)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, res := e.ok("exec", tt.in)
			for _, w := range tt.wants {
				if !strings.Contains(got, w) {
					t.Errorf("%q lacks %q", got, w)
				}
			}
			if out := res.Structured.(*ExecOutput); tt.check != nil && !tt.check(out) {
				t.Errorf("output %+v", out)
			}
		})
	}
	e.fails("exec", `{}`, CodeInvalid, "command is required")
	e.fails("exec", `{"command":"  "}`, CodeInvalid, "needs a command")
	e.fails("exec", `{"command":"true","backend":"gpu"}`, CodeUnknownBackend, `no backend "gpu"`, "shell")
	e.fails("exec", `{"command":"true","timeout":-1}`, CodeInvalid, "seconds")
	e.fails("exec", `{"command":"true","timeout":"30s"}`, CodeInvalid, `field "timeout" must be a number`)
	e.fails("exec", `{"command":"true","timeout":100000}`, CodeInvalid, "timeout")
	e.fails("exec", `{"command":"true","env":{"A":1}}`, CodeInvalid, "must be a string")

	// The record keeps the whole output the tool cut.
	_, res := e.ok("exec", `{"command":"seq 1 100"}`)
	out := res.Structured.(*ExecOutput)
	full, err := e.rt.Get(e.ctx, out.ID)
	if err != nil || !strings.Contains(full.Stdout, "\n50\n") || strings.Contains(out.Stdout, "\n50\n") {
		t.Errorf("record: %v %q", err, full.Stdout)
	}
}

func TestExec_progressAndCancel(t *testing.T) {
	e := newEnv(t, Options{ProgressInterval: time.Millisecond})
	var mu sync.Mutex
	var reports []Progress
	progress := func(p Progress) {
		mu.Lock()
		reports = append(reports, p)
		mu.Unlock()
	}
	res, err := e.set.Call(e.ctx, "exec", json.RawMessage(`{"command":"for i in 1 2 3; do echo step $i; sleep 0.1; done"}`), &CallOptions{Progress: progress})
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	if len(reports) < 2 || reports[0].Message != "step 1" || reports[len(reports)-1].Progress < reports[0].Progress {
		t.Errorf("reports %+v", reports)
	}
	mu.Unlock()
	if !strings.Contains(res.Text(), "step 3") {
		t.Error(res.Text())
	}

	// Cancelling the call kills the execution.
	ctx, cancel := context.WithCancel(e.ctx)
	started := make(chan struct{}, 1)
	var callErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, callErr = e.set.Call(ctx, "exec", json.RawMessage(`{"command":"echo started; sleep 30"}`), &CallOptions{Progress: func(Progress) {
			select {
			case started <- struct{}{}:
			default:
			}
		}})
	}()
	<-started
	cancel()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("the cancelled call did not return within 20s (hang guard; its sleep would end at 30s)")
	}
	te := AsError(callErr, "")
	if te == nil || te.Code != CodeCancelled || !strings.Contains(te.Message, "was killed") {
		t.Fatalf("cancel: %v", callErr)
	}
	id := strings.Fields(te.Message[strings.Index(te.Message, "execution ")+len("execution "):])[0]
	r, err := e.rt.Get(e.ctx, id)
	if err != nil || r.Status != run.StatusCancelled || r.Signal != "SIGKILL" {
		t.Errorf("record after cancel: %v %+v", err, r)
	}
	// Without progress, cancelling kills too.
	ctx2, cancel2 := context.WithTimeout(e.ctx, 200*time.Millisecond)
	defer cancel2()
	if _, err := e.set.Call(ctx2, "exec", json.RawMessage(`{"command":"sleep 30"}`), nil); AsError(err, "").Code != CodeCancelled {
		t.Errorf("timeout ctx: %v", err)
	}
	if e.rt.Running() != 0 {
		t.Errorf("%d still running", e.rt.Running())
	}
}

func TestExec_noRuntime(t *testing.T) {
	e := newEnv(t, Options{})
	s, err := New(e.set.st, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Call(e.ctx, "exec", json.RawMessage(`{"command":"true"}`), nil); AsError(err, "").Code != CodeUnavailable {
		t.Errorf("exec without runtime: %v", err)
	}
	for _, tl := range s.Tools() {
		if tl.Name == "exec" {
			t.Error("exec listed without a runtime")
		}
	}
	if _, err := s.Call(e.ctx, "frobnicate", nil, nil); AsError(err, "").Code != CodeUnknownTool || !strings.Contains(err.Error(), "read, write, edit, ls, find, grep, delete, exec") {
		t.Errorf("unknown tool: %v", err)
	}
}
