package tools

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
)

// TestConcurrent_sameFile races edits, writes and reads of one file: every
// edit applies exactly once on top of the one before, and a read sees one
// whole version, never a mix.
func TestConcurrent_sameFile(t *testing.T) {
	e := newEnv(t, Options{})
	e.put("/workspace/log.txt", "END\n")
	const n = 24
	var wg sync.WaitGroup
	errs := make(chan error, 3*n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			in := mustJSON(EditInput{Path: "log.txt", Edits: []Edit{{"END\n", fmt.Sprintf("line %02d\nEND\n", i)}}})
			if _, err := e.set.Call(e.ctx, "edit", json.RawMessage(in), nil); err != nil {
				errs <- err
			}
		}()
	}
	// Meanwhile a second file flips between two whole versions.
	a, b := strings.Repeat("A\n", 3000), strings.Repeat("B\n", 3000)
	e.put("/workspace/flip.txt", a)
	for i := 0; i < n; i++ {
		wg.Add(2)
		go func() {
			defer wg.Done()
			c := a
			if i%2 == 1 {
				c = b
			}
			if _, err := e.set.Call(e.ctx, "write", json.RawMessage(mustJSON(WriteInput{Path: "flip.txt", Content: c})), nil); err != nil {
				errs <- err
			}
		}()
		go func() {
			defer wg.Done()
			res, err := e.set.Call(e.ctx, "read", json.RawMessage(`{"path":"flip.txt"}`), nil)
			if err != nil {
				errs <- err
				return
			}
			txt := res.Structured.(*ReadOutput).Text
			if strings.Contains(txt, "\tA") == strings.Contains(txt, "\tB") {
				errs <- fmt.Errorf("read saw a mix of two writes")
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	got := e.get("/workspace/log.txt")
	if lines := strings.Count(got, "\n"); lines != n+1 || !strings.HasSuffix(got, "END\n") {
		t.Errorf("%d lines:\n%s", lines, got)
	}
	for i := 0; i < n; i++ {
		if !strings.Contains(got, fmt.Sprintf("line %02d\n", i)) {
			t.Errorf("edit %d lost", i)
		}
	}
}

// TestEdit_casAgainstOtherWriters: a writer that bypasses the tools'
// locks (an execution), changing the file between edit's read and its
// write, makes the edit fail with a conflict rather than be overwritten.
func TestEdit_casAgainstOtherWriters(t *testing.T) {
	e := newEnv(t, Options{})
	e.put("/workspace/f", "one\n")
	testHookBeforeSwap = func() { e.put("/workspace/f", "two\n") }
	defer func() { testHookBeforeSwap = nil }()
	e.fails("edit", `{"path":"f","edits":[{"old":"one","new":"ONE"}]}`, CodeConflict, "changed while it was being edited")
	if got := e.get("/workspace/f"); got != "two\n" {
		t.Errorf("the other writer's change was lost: %q", got)
	}
}
