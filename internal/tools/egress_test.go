package tools

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"testing"

	"github.com/desk-dev/desk/internal/egress"
	"github.com/desk-dev/desk/internal/run"
)

// TestExec_Egress: the exec tool's egress narrows the execution's network
// (a layer in Exec's context); a malformed one is refused before anything
// runs.
func TestExec_Egress(t *testing.T) {
	var mu sync.Mutex
	var seen []egress.Layer
	net := func(ctx context.Context, job *run.Job) http.RoundTripper {
		mu.Lock()
		seen = egress.LayersFrom(ctx)
		mu.Unlock()
		return nil
	}
	set := newRunEnv(t, Options{}, run.Options{Network: net}, nil).set
	if _, err := set.Exec(context.Background(), ExecInput{Command: "echo hi", Egress: "allow a.example.com:443"}, nil); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	l := seen
	mu.Unlock()
	if len(l) != 1 || l[0].Source != egress.SourceExecution || l[0].Policy.String() != "allow a.example.com:443" {
		t.Fatalf("layers %+v", l)
	}
	_, err := set.Exec(context.Background(), ExecInput{Command: "echo hi", Egress: "maybe"}, nil)
	var te *Error
	if !errors.As(err, &te) || te.Code != CodeInvalid {
		t.Fatalf("a bad egress: %v", err)
	}
}
