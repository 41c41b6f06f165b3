// Package fair is desk's fair shares: bounds on what is held at once —
// running executions, js executions, services (detached executions),
// interactive shells, live sandboxes — per workspace token, per workspace
// and across the whole server, so that no token or workspace can take
// what the others need.
//
// # Three levels
//
// A Ledger counts, in the process that serves a workspace (a worker of
// desk serve, or desk serve itself without workers), what each workspace
// and each of its tokens holds, by Kind, and refuses past their Limits: the
// token's share first (the admin, named by no token, is exempt: it is
// bounded by the workspace's and the server's bounds only), then the
// workspace's. For a kind the Host bounds, it then takes a host-wide slot:
// from a Pool in this process (Pool.Local), or from the front's Pool across
// worker processes (package worker carries the request over the worker's
// control channel). Acquire is all or nothing, and its release gives every
// count and slot back. Only kinds the host bounds cost a slot request, and
// only when such a thing starts: never per HTTP request.
//
// # Refusals
//
// A refusal is a *LimitError (errors.Is ErrTooMany) that names the holder,
// how many it holds of how many, and the setting that changes the bound:
// "workspace a holds 2 of its 2 services (--max-services-per-workspace)",
// "token tok_… holds 4 of its 4 running js executions in workspace a
// (--max-js-per-token)", "the server holds 8 of its 8 live sandboxes,
// across all workspaces (--max-sandboxes)". The API answers a token's or a
// workspace's refusal with 429 and a host-wide one with 503, both with code
// too_many. A refusal of one workspace never refuses another: each level
// counts only its own holder, and the host-wide bound is the only one they
// share.
//
// # The host-wide pool
//
// A Pool gives slots to Owners (a worker process, or a holder in this
// process), counted per kind against PoolOptions.Limits. Take answers at
// once when the kind has room, and refuses when it has none — unless a
// reclaimable slot of the kind is idle (a warm sandbox that runs nothing):
// then the pool asks its owner to give it back (Owner.Reclaim, the least
// recently idle first) and grants the slot to the waiting request once it
// comes back, or refuses after PoolOptions.ReclaimWait. An owner that finds
// its resource busy after all says so (Idle false), and the request moves
// to the next idle slot or is refused. Drop releases everything an owner
// held, which the front does when a worker exits or dies: a dead worker
// never keeps a slot.
//
// # Limits
//
// Memory is bounded by the bounds themselves: a Ledger holds an entry per
// workspace, token and kind held (none once released); a Pool an entry per
// slot held and per request waiting (at most one per idle reclaimable slot).
package fair
