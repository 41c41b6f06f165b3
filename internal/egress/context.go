package egress

import "context"

type layersKey struct{}

// WithLayer returns ctx carrying one more narrowing layer for the
// executions started with it (a token's policy, an execution's own): the
// host's run.Options.Network adds the layers of Exec's ctx after the
// workspace's policy.
func WithLayer(ctx context.Context, l Layer) context.Context {
	prev := LayersFrom(ctx)
	return context.WithValue(ctx, layersKey{}, append(prev[:len(prev):len(prev)], l))
}

// LayersFrom returns the narrowing layers ctx carries (WithLayer).
func LayersFrom(ctx context.Context) []Layer {
	l, _ := ctx.Value(layersKey{}).([]Layer)
	return l
}

// The sources of the layers desk makes, as denials name them.
const (
	SourceWorkspace = "the workspace's policy"
	SourceDefault   = "the server's default policy (desk serve --egress)"
	SourceToken     = "the token's policy"
	SourceExecution = "the execution's policy"
)
