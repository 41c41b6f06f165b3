package tools

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/desk-dev/desk/internal/run"
)

// ticker is the test run.Detacher: RunDetached prints its source, reports
// the start and runs until it is killed. (Run refuses: it only serves
// detached executions.)
type ticker struct{}

var _ run.Detacher = ticker{}

func (ticker) Run(ctx context.Context, job *run.Job) (run.Outcome, error) {
	return run.Outcome{}, fmt.Errorf("ticker runs only detached executions")
}

func (ticker) RunDetached(ctx context.Context, job *run.Job, started func()) (run.Outcome, error) {
	fmt.Fprintln(job.Stdout, job.Source)
	started()
	<-ctx.Done()
	return run.Outcome{ExitCode: 143}, nil
}

func TestExec_detached(t *testing.T) {
	e := newEnv(t, Options{})
	e.fails("exec", `{"command":"sleep 1","detached":true,"backend":"shell"}`, CodeInvalid, "backend shell cannot run detached executions")
	// No backend named: one that can run it, and here there is none.
	e.fails("exec", `{"command":"sleep 1","detached":true}`, CodeInvalid, "no backend that can run detached executions is available")

	// A runtime with a backend that can.
	e = newRunEnv(t, Options{}, run.Options{}, map[string]run.Backend{"svc": ticker{}})
	rt := e.rt
	got, res := e.ok("exec", `{"command":"serving","backend":"auto","detached":true}`)
	out := res.Structured.(*ExecOutput)
	if out.Status != "running" || !out.Detached || out.Backend != "svc" || out.Stdout != "serving\n" {
		t.Errorf("output %+v", out)
	}
	if !strings.Contains(got, "serving\n[running detached · svc backend · execution "+out.ID+"]\n[it goes on after this call") {
		t.Errorf("text %q", got)
	}
	x, ok := rt.Lookup(out.ID)
	if !ok {
		t.Fatal("the service is not running after the call")
	}
	x.Kill(run.SIGTERM)
	if r, err := x.Wait(e.ctx); err != nil || r.Status != run.StatusCancelled {
		t.Errorf("killed: %+v, %v", r, err)
	}
	e.fails("exec", `{"command":"x","backend":"svc","detached":true,"stdin":"in"}`, CodeInvalid, "standard input")
}
