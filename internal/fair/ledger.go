package fair

import (
	"context"
	"sync"
)

// Limits are the bounds of one process's holders: per workspace and per
// workspace token, by kind (a missing kind or Max 0: no bound there).
type Limits struct {
	Workspace map[Kind]Bound `json:"workspace,omitempty"`
	Token     map[Kind]Bound `json:"token,omitempty"`
}

// Ledger counts what each workspace and each token holds, refuses past
// their bounds, and takes a host-wide slot from its Host for each kind the
// host bounds. Safe for concurrent use.
type Ledger struct {
	limits Limits
	host   Host

	mu  sync.Mutex
	ws  map[wsKey]int
	tok map[tokKey]int
}

type wsKey struct {
	ws   string
	kind Kind
}

type tokKey struct {
	ws, token string
	kind      Kind
}

// NewLedger returns a ledger with limits; host gives the host-wide slots
// (nil: no host-wide bound).
func NewLedger(l Limits, host Host) *Ledger {
	return &Ledger{limits: l, host: host, ws: map[wsKey]int{}, tok: map[tokKey]int{}}
}

// Limits returns the ledger's bounds.
func (l *Ledger) Limits() Limits { return l.limits }

// Held returns what workspace ws holds of kind k, and of that what token
// holds ("": skip).
func (l *Ledger) Held(ws, token string, k Kind) (inWorkspace, byToken int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.ws[wsKey{ws, k}], l.tok[tokKey{ws, token, k}]
}

// Acquire takes one of each of kinds in workspace ws on behalf of token
// (its id; "" is the admin, whom no token bound applies to): within the
// token's share, then the workspace's, then a host-wide slot for each kind
// the host bounds (which may be a round trip to the front). All or nothing:
// a refusal (a *LimitError naming the bound) takes nothing. release gives
// everything back; call it once.
func (l *Ledger) Acquire(ctx context.Context, ws, token string, kinds ...Kind) (release func(), err error) {
	l.mu.Lock()
	for i, k := range kinds {
		if err := l.checkLocked(ws, token, k); err != nil {
			l.uncountLocked(ws, token, kinds[:i])
			l.mu.Unlock()
			return nil, err
		}
		l.ws[wsKey{ws, k}]++
		if token != "" {
			l.tok[tokKey{ws, token, k}]++
		}
	}
	l.mu.Unlock()
	var slots []Slot
	undo := func() {
		for _, s := range slots {
			s.Release()
		}
		l.mu.Lock()
		l.uncountLocked(ws, token, kinds)
		l.mu.Unlock()
	}
	if l.host != nil {
		for _, k := range kinds {
			if !l.host.Bounds(k) {
				continue
			}
			s, err := l.host.Acquire(ctx, k, nil)
			if err != nil {
				undo()
				return nil, err
			}
			slots = append(slots, s)
		}
	}
	var once sync.Once
	return func() { once.Do(undo) }, nil
}

// checkLocked refuses k when the token or the workspace is at its bound.
func (l *Ledger) checkLocked(ws, token string, k Kind) error {
	if b := l.limits.Token[k]; token != "" && b.Max > 0 {
		if n := l.tok[tokKey{ws, token, k}]; n >= b.Max {
			return &LimitError{Kind: k, Scope: ScopeToken, Workspace: ws, Token: token, Held: n, Max: b.Max, Setting: b.Setting}
		}
	}
	if b := l.limits.Workspace[k]; b.Max > 0 {
		if n := l.ws[wsKey{ws, k}]; n >= b.Max {
			return &LimitError{Kind: k, Scope: ScopeWorkspace, Workspace: ws, Held: n, Max: b.Max, Setting: b.Setting}
		}
	}
	return nil
}

// uncountLocked takes kinds off the counts, dropping zeros so that the
// maps hold only what is held.
func (l *Ledger) uncountLocked(ws, token string, kinds []Kind) {
	for _, k := range kinds {
		wk := wsKey{ws, k}
		if l.ws[wk]--; l.ws[wk] <= 0 {
			delete(l.ws, wk)
		}
		if token != "" {
			tk := tokKey{ws, token, k}
			if l.tok[tk]--; l.tok[tk] <= 0 {
				delete(l.tok, tk)
			}
		}
	}
}
