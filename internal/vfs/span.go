package vfs

import (
	"context"
	"sync"
)

// ChangeSpan collects the journal's sequence numbers and paths of the
// changes made with a context (WithChangeSpan), once they commit: the audit
// journal's link from a call to the changes it caused. It keeps at most
// MaxSpanRanges ranges (further ones widen the last) and MaxSpanPaths
// distinct paths (Truncated says some were left out). Safe for concurrent use.
type ChangeSpan struct {
	mu        sync.Mutex
	ranges    [][2]uint64
	paths     []string
	seen      map[string]struct{}
	truncated bool
}

// Bounds of a ChangeSpan.
const (
	MaxSpanRanges = 64
	MaxSpanPaths  = 256
)

type spanKey struct{}

// WithChangeSpan returns a context whose committed changes are added to s.
func WithChangeSpan(ctx context.Context, s *ChangeSpan) context.Context {
	return context.WithValue(ctx, spanKey{}, s)
}

func spanOf(ctx context.Context) *ChangeSpan {
	s, _ := ctx.Value(spanKey{}).(*ChangeSpan)
	return s
}

// spanMark says that change i of a transaction belongs to span s.
type spanMark struct {
	i int
	s *ChangeSpan
}

func (s *ChangeSpan) add(ch *Change) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if n := len(s.ranges); n > 0 && s.ranges[n-1][1]+1 >= ch.Seq {
		s.ranges[n-1][1] = max(s.ranges[n-1][1], ch.Seq)
	} else if n < MaxSpanRanges {
		s.ranges = append(s.ranges, [2]uint64{ch.Seq, ch.Seq})
	} else {
		s.ranges[n-1][1] = ch.Seq
		s.truncated = true
	}
	for _, p := range [2]string{ch.Path, ch.OldPath} {
		if p == "" {
			continue
		}
		if _, ok := s.seen[p]; ok {
			continue
		}
		if len(s.paths) >= MaxSpanPaths {
			s.truncated = true
			continue
		}
		if s.seen == nil {
			s.seen = make(map[string]struct{})
		}
		s.seen[p] = struct{}{}
		s.paths = append(s.paths, p)
	}
}

// Ranges returns the inclusive sequence-number ranges collected so far, in
// commit order.
func (s *ChangeSpan) Ranges() [][2]uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([][2]uint64(nil), s.ranges...)
}

// Paths returns the distinct paths the changes touched (both names of a
// rename), and whether some ranges or paths were left out.
func (s *ChangeSpan) Paths() ([]string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.paths...), s.truncated
}
