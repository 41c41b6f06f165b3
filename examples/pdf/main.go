// Command pdf is desk's Markdown-to-PDF example: an agent writes Markdown
// into a workspace with the agent tools, pandoc turns it into a PDF in the
// sandbox, and the PDF comes back to this machine and is shared by a link.
//
//	go run ./examples/pdf [-w WORKSPACE] [-o report.pdf]
//
// It talks to the server `desk serve` wrote in the config file, or to
// $DESK_URL with $DESK_TOKEN.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/desk-dev/desk/client"
)

// report is the Markdown the "agent" writes.
const report = `---
title: Quarterly notes
author: desk example
---

# Summary

The workspace kept every step: this file was written through the agent
tools, and the sandbox turned it into a PDF.

# Figures

| quarter | tickets | closed |
|---------|--------:|-------:|
| Q1      |     120 |    111 |
| Q2      |     140 |    137 |

The closing rate is $\frac{248}{260} \approx 95\%$.
`

func main() {
	ws := flag.String("w", "pdf-example", "the workspace (created when missing)")
	out := flag.String("o", "report.pdf", "where to save the PDF on this machine")
	flag.Parse()
	c, err := client.FromEnvironment(client.Options{})
	if err == nil {
		err = run(context.Background(), c, *ws, *out, os.Stdout)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "pdf:", err)
		os.Exit(1)
	}
}

// run makes the PDF in workspace ws, saves it at out and prints its share
// link to w.
func run(ctx context.Context, c *client.Client, ws, out string, w io.Writer) error {
	if _, err := c.CreateWorkspace(ctx, ws); err != nil && client.ErrorCode(err) != "exists" {
		return err
	}
	// 1. The agent writes the Markdown with the write tool (as over MCP).
	input, _ := json.Marshal(map[string]string{"path": "report.md", "content": report})
	res, err := c.CallTool(ctx, ws, "write", input, nil)
	if err != nil {
		return err
	}
	if res.IsError {
		return fmt.Errorf("write tool: %s", res.Error.Message)
	}
	// 2. pandoc, with TeX as its PDF engine, runs in the sandbox on the same file.
	r, err := c.Run(ctx, ws, client.ExecRequest{Backend: "sandbox", Source: "pandoc report.md -o report.pdf && ls -l report.pdf"})
	if err != nil {
		return err
	}
	if r.Status != client.StatusCompleted || r.ExitCode != 0 {
		return fmt.Errorf("pandoc in the sandbox: %s, exit %d\n%s%s", r.Status, r.ExitCode, r.Stdout, r.Stderr)
	}
	fmt.Fprint(w, r.Stdout)
	// 3. The PDF comes back to this machine...
	pdf, err := c.ReadFile(ctx, ws, "report.pdf")
	if err != nil {
		return err
	}
	if err := os.WriteFile(out, pdf, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(w, "saved %s (%d bytes)\n", out, len(pdf))
	// 4. ...and anyone with the link can fetch it for a day.
	sh, err := c.CreateShare(ctx, ws, client.ShareRequest{Path: "report.pdf", ExpiresIn: 86400})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "share link: %s\n", sh.URL)
	return nil
}
