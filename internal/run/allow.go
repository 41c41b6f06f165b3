package run

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// ErrNotAllowed is returned by Exec for a backend the caller may not use
// (see WithBackends).
var ErrNotAllowed = errors.New("backend not allowed")

type backendsKey struct{}

// WithBackends restricts the executions started with ctx to the backends
// ids (a token restricted to some backends, for example). With "auto" among
// them, the Router chooses only among the others: a token allowed shell and
// auto never reaches the sandbox through auto. A nil or empty ids is no
// restriction.
func WithBackends(ctx context.Context, ids []string) context.Context {
	if len(ids) == 0 {
		return ctx
	}
	return context.WithValue(ctx, backendsKey{}, slices.Clone(ids))
}

// allowedBackends returns the restriction of ctx (nil: none).
func allowedBackends(ctx context.Context) []string {
	ids, _ := ctx.Value(backendsKey{}).([]string)
	return ids
}

// allowBackend checks a backend id (or AutoBackend) against allowed.
func allowBackend(allowed []string, id string) error {
	if allowed == nil || slices.Contains(allowed, id) {
		return nil
	}
	return fmt.Errorf("route execution: backend %q: this caller may use only %s: %w", id, strings.Join(allowed, ", "), ErrNotAllowed)
}

// routable is what the Router may choose from: the configured backends that
// allowed permits.
func routable(have, allowed []string) []string {
	if allowed == nil {
		return have
	}
	var out []string
	for _, b := range have {
		if slices.Contains(allowed, b) {
			out = append(out, b)
		}
	}
	return out
}

type startedKey struct{}

// WithStarted returns ctx whose Exec calls pass each execution they start
// to fn, once it is running and before Exec returns (a detached one before
// its start is waited for). A call that starts executions (an agent's tool
// call) uses it to record their ends, which may come after the call's own
// end. fn must not block.
func WithStarted(ctx context.Context, fn func(*Execution)) context.Context {
	return context.WithValue(ctx, startedKey{}, fn)
}

func startedHook(ctx context.Context) func(*Execution) {
	fn, _ := ctx.Value(startedKey{}).(func(*Execution))
	return fn
}
