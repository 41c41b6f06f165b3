package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/desk-dev/desk/client"
)

var changesSpec = &cmdSpec{
	name:     "changes",
	synopsis: "WS [--since N] [--follow] [--json]",
	summary:  "print a workspace's change journal, one line per change; --follow streams new changes live",
	help: `Each line reads: SEQ TIME OP PATH, where OP is create, mkdir, symlink, link,
remove, rename, exchange, write, truncate or setattr. A rename or link shows
OLD -> NEW; a write shows the byte range; a change made by an execution ends
with "by EXEC_ID". --since N starts after change N (the SEQ of the last line
seen), so nothing is repeated or lost between runs. --follow keeps printing
until interrupted (Ctrl-C, exit status 0).`,
	minArgs: 1, maxArgs: 1,
}

func runChanges(ctx context.Context, args []string, st streams) int {
	cmd, fl := changesSpec.remoteCmd()
	since := fl.Uint64("since", 0, "print the changes after change number `N`")
	follow := fl.Bool("follow", false, "after the journal so far, stream new changes until interrupted")
	fl.BoolVar(follow, "f", false, "short for --follow")
	asJSON := fl.Bool("json", false, "print each change as a JSON object (NDJSON)")
	print := func(ch client.Change) error {
		if *asJSON {
			return json.NewEncoder(st.out).Encode(ch)
		}
		_, err := fmt.Fprintln(st.out, changeLine(ch))
		return err
	}
	return cmd.run(args, st, nil, func(c *client.Client, pos []string) error {
		ws := pos[0]
		if !*follow {
			cursor := *since
			for {
				l, err := c.Changes(ctx, ws, cursor, 0)
				if err != nil {
					return err
				}
				for _, ch := range l.Changes {
					if err := print(ch); err != nil {
						return err
					}
				}
				if len(l.Changes) == 0 || l.Next <= cursor {
					return nil
				}
				cursor = l.Next
			}
		}
		s, err := c.FollowChanges(ctx, ws, *since, client.NDJSON)
		if err != nil {
			return err
		}
		defer s.Close()
		for {
			ch, err := s.Next()
			if ctx.Err() != nil {
				return nil // interrupted: the normal end of --follow
			}
			if errors.Is(err, io.EOF) {
				return fmt.Errorf("the server ended the change stream after change %d", s.LastID)
			}
			if err != nil {
				return err
			}
			if err := print(ch); err != nil {
				return err
			}
		}
	})
}

// changeLine renders a change for people.
func changeLine(ch client.Change) string {
	line := fmt.Sprintf("%d %s %-8s ", ch.Seq, ch.Time.Local().Format("2006-01-02 15:04:05.000"), ch.Op)
	switch {
	case ch.OldPath != "":
		line += ch.OldPath + " -> " + ch.Path
	default:
		line += ch.Path
	}
	switch ch.Op {
	case "write":
		line += fmt.Sprintf(" [%d, %d)", ch.Off, ch.Off+ch.Len)
	case "truncate":
		line += fmt.Sprintf(" size %d", ch.Off)
	}
	if ch.Actor != "" {
		line += " by " + ch.Actor
	}
	return line
}
