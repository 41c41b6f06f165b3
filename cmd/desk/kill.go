package main

import (
	"context"
	"fmt"

	"github.com/desk-dev/desk/client"
)

var killSpec = &cmdSpec{
	name:     "kill",
	synopsis: "WS EXEC_ID [--signal SIG]",
	summary:  "send a signal to a running execution (default SIGTERM); it ends as cancelled",
	help: `SIG is SIGTERM, SIGINT, SIGHUP, SIGQUIT or SIGKILL, by name (TERM, term) or
number. The execution ends as cancelled with exit code 128+N. In the sandbox
every process of the execution gets the signal (a detached execution's whole
session), and SIGKILL follows after a grace period (2s) for what is left. The
server answers at once; 'desk attach WS EXEC_ID' follows the execution to its
end. Killing an execution that has ended fails with not_running.`,
	minArgs: 2, maxArgs: 2,
}

func runKill(ctx context.Context, args []string, st streams) int {
	cmd, fl := killSpec.remoteCmd()
	sig := fl.String("signal", "SIGTERM", "the signal: a name (SIGTERM, TERM, term) or a number")
	return cmd.run(args, st, nil, func(c *client.Client, pos []string) error {
		ws, id := pos[0], pos[1]
		if err := c.Kill(ctx, ws, id, *sig); err != nil {
			return fmt.Errorf("kill execution %s: %w", id, err)
		}
		return nil
	})
}
