package main

import (
	"encoding/json"
	"flag"
	"fmt"
)

var fsStats = &fsVerb{
	name:     "stats",
	synopsis: "[-json]",
	summary:  "summarise the store: files, directories, symlinks, bytes, unique bytes, inline files and bytes, chunks (in the chunk file), dedup ratio, and its space on disk: live, file, WAL and reclaimable bytes",
	minArgs:  0,
	maxArgs:  0,
	setup: func(fl *flag.FlagSet) func(*fsCmd, []string) error {
		asJSON := fl.Bool("json", false, "print the vfs.Stats value as JSON")
		return func(c *fsCmd, args []string) error {
			fsys, err := c.files()
			if err != nil {
				return err
			}
			s, err := fsys.Stats(c.ctx)
			if err != nil {
				return err
			}
			if *asJSON {
				enc := json.NewEncoder(c.out)
				enc.SetIndent("", "  ")
				return enc.Encode(s)
			}
			row := func(name, value string) { fmt.Fprintf(c.out, "%-13s %s\n", name, value) }
			bytes := func(n int64) string { return fmt.Sprintf("%d (%s)", n, humanBytes(n)) }
			row("files", fmt.Sprint(s.Files))
			row("dirs", fmt.Sprint(s.Dirs))
			row("symlinks", fmt.Sprint(s.Symlinks))
			if s.Special > 0 {
				row("special", fmt.Sprint(s.Special))
			}
			row("bytes", bytes(s.Bytes))
			row("stored bytes", bytes(s.StoredBytes))
			row("unique bytes", bytes(s.UniqueBytes))
			row("inline files", fmt.Sprint(s.InlineFiles))
			row("inline bytes", bytes(s.InlineBytes))
			row("chunks", fmt.Sprint(s.Chunks))
			row("chunk file", fmt.Sprintf("%d chunks, %s", s.SlotChunks, bytes(s.ChunkFileBytes)))
			row("dedup ratio", fmt.Sprintf("%.2f", s.DedupRatio))
			row("journal seq", fmt.Sprint(s.JournalSeq))
			row("database", bytes(s.DBBytes))
			row("live bytes", bytes(s.LiveBytes))
			row("file bytes", bytes(s.FileBytes))
			row("wal bytes", bytes(s.WALBytes))
			row("reclaimable", bytes(s.ReclaimableBytes))
			return nil
		}
	},
}
