package policy

import (
	"context"
	"sync"
)

// MaxDenialKinds bounds the distinct refusals a Denials keeps between two
// Takes: one per (layer, rule, access); refusals of further rules are only
// counted.
const MaxDenialKinds = 16

// Denial is one kind of path refusal made for a call: the decision of its
// first refused path (Subject) and how many refusals of that rule and
// access the call met.
type Denial struct {
	Decision
	Count int
}

// Denials aggregates the path refusals of one call (an API request, an MCP
// request, an execution) for its audit records: a find over a denied tree
// is one Denial with a count, not a record per path. Safe for concurrent
// use; the zero value is ready.
type Denials struct {
	mu    sync.Mutex
	kinds []Denial
	more  int // refusals of kinds past MaxDenialKinds
}

// add counts one refusal.
func (d *Denials) add(dec Decision) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for i := range d.kinds {
		k := &d.kinds[i]
		if k.Rule == dec.Rule && k.Source == dec.Source && k.Action == dec.Action {
			k.Count++
			return
		}
	}
	if len(d.kinds) >= MaxDenialKinds {
		d.more++
		return
	}
	d.kinds = append(d.kinds, Denial{Decision: dec, Count: 1})
}

// Take returns the refusals counted since the last Take, and how many more
// there were of kinds past MaxDenialKinds, and starts counting afresh.
func (d *Denials) Take() ([]Denial, int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	ks, more := d.kinds, d.more
	d.kinds, d.more = nil, 0
	return ks, more
}

type denialsKey struct{}

// WithDenials returns ctx whose Checkers (Set.CheckerFor) count their
// refusals in d.
func WithDenials(ctx context.Context, d *Denials) context.Context {
	return context.WithValue(ctx, denialsKey{}, d)
}

// DenialsFrom returns the Denials WithDenials recorded (nil if none).
func DenialsFrom(ctx context.Context) *Denials {
	d, _ := ctx.Value(denialsKey{}).(*Denials)
	return d
}
