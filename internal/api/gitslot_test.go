package api

import (
	"errors"
	"net/http"
	"testing"
)

// TestTakeGitSlot: a workspace serves at most MaxGitRequests git pack
// requests at once, the next gets 429 too_many, an ended one frees its
// slot, and other workspaces are not counted against it.
func TestTakeGitSlot(t *testing.T) {
	s := &Server{}
	var releases []func()
	for range MaxGitRequests {
		r, err := s.takeGitSlot("a")
		if err != nil {
			t.Fatal(err)
		}
		releases = append(releases, r)
	}
	_, err := s.takeGitSlot("a")
	var e *Error
	if !errors.As(err, &e) || e.Status != http.StatusTooManyRequests || e.Code != CodeTooMany {
		t.Fatalf("past the bound: %v", err)
	}
	if r, err := s.takeGitSlot("b"); err != nil {
		t.Fatalf("another workspace: %v", err)
	} else {
		r()
	}
	releases[0]()
	if r, err := s.takeGitSlot("a"); err != nil {
		t.Fatalf("after one ended: %v", err)
	} else {
		r()
	}
	for _, r := range releases[1:] {
		r()
	}
	if len(s.gitBusy) != 0 {
		t.Fatalf("counts left: %v", s.gitBusy)
	}
}
