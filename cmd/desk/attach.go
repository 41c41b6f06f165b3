package main

import (
	"context"
	"fmt"
)

var attachSpec = &cmdSpec{
	name:     "attach",
	synopsis: "WS EXEC_ID [--from N]",
	summary:  "follow an execution's output from its first event (or event N) and exit with its exit code",
	help: `Output is written as desk exec writes it: standard output and error live, and
the exit status is the execution's. An execution that has ended is replayed
from its kept output. Interrupting desk attach (Ctrl-C) detaches, exit status
130; the execution goes on.`,
	minArgs: 2, maxArgs: 2,
}

func runAttach(ctx context.Context, args []string, st streams) int {
	sp := attachSpec
	fl := sp.flags()
	sf := addServerFlags(fl)
	from := fl.Uint64("from", 0, "the first event number to replay (events are numbered from 1)")
	pos, code, ok := sp.parse(fl, args, st)
	if !ok {
		return code
	}
	ws, id := pos[0], pos[1]
	c, srv, err := sf.client()
	if err != nil {
		return sp.fail(st, err)
	}
	exit, err := streamEvents(ctx, c, ws, id, *from, st)
	if err != nil {
		if ctx.Err() != nil {
			fmt.Fprintf(st.err, "desk attach: detached; execution %s goes on\n", id)
			return 130
		}
		return sp.fail(st, reachable(err, srv))
	}
	return exitCode(sp, st, id, exit)
}
