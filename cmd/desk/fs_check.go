package main

import (
	"flag"
	"fmt"
)

var fsCheck = &fsVerb{
	name:     "check",
	synopsis: "",
	summary:  "verify every invariant of the store (exit 1, listing the problems, if any fails; over the API: admin)",
	minArgs:  0,
	maxArgs:  0,
	setup: func(fl *flag.FlagSet) func(*fsCmd, []string) error {
		return func(c *fsCmd, args []string) error {
			fsys, err := c.files()
			if err != nil {
				return err
			}
			rep, err := fsys.Check(c.ctx)
			if err != nil {
				return err
			}
			name := c.dbPath
			if name == "" {
				name = c.ws
			}
			if rep.OK {
				fmt.Fprintf(c.out, "%s: ok\n", name)
				return nil
			}
			for _, p := range rep.Problems {
				fmt.Fprintln(c.out, p)
			}
			return fmt.Errorf("%s: %d problems found", name, len(rep.Problems))
		}
	},
}
