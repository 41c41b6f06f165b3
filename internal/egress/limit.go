package egress

import (
	"context"

	"golang.org/x/time/rate"
)

// chunk is the most a connection reads or writes at once, so that one
// connection cannot take the whole bucket at a go.
const chunk = 256 << 10

// limiter bounds bytes per second, shared by a workspace's connections.
type limiter struct{ l *rate.Limiter }

func newLimiter(perSecond int64) *limiter {
	return &limiter{l: rate.NewLimiter(rate.Limit(perSecond), max(chunk, int(min(perSecond/10, 4<<20))))}
}

// wait waits until n bytes may pass.
func (l *limiter) wait(n int) {
	if n > 0 {
		_ = l.l.WaitN(context.Background(), n)
	}
}
