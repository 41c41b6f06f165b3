package main

import (
	"flag"
	"fmt"
)

var fsCompact = &fsVerb{
	name:     "compact",
	synopsis: "",
	summary:  "give the store's free pages back to the filesystem and truncate its WAL (a store made before incremental auto-vacuum is converted, with one VACUUM)",
	write:    true,
	local:    true,
	minArgs:  0,
	maxArgs:  0,
	setup: func(fl *flag.FlagSet) func(*fsCmd, []string) error {
		return func(c *fsCmd, args []string) error {
			fsys, err := c.store()
			if err != nil {
				return err
			}
			before, err := fsys.Stats(c.ctx)
			if err != nil {
				return err
			}
			if err := fsys.Compact(c.ctx); err != nil {
				return err
			}
			after, err := fsys.Stats(c.ctx)
			if err != nil {
				return err
			}
			fmt.Fprintf(c.out, "%s: %s → %s on disk (%s live)\n", c.dbPath, humanBytes(before.DBBytes), humanBytes(after.DBBytes), humanBytes(after.LiveBytes))
			return nil
		}
	},
}
