// Command image is desk's image example: a program in the workspace (an ES
// module on the js backend) draws a PNG chart of the workspace's file sizes,
// the read tool returns it as image content, and a share link serves it.
//
//	go run ./examples/image [-w WORKSPACE] [-o chart.png]
//
// It talks to the server `desk serve` wrote in the config file, or to
// $DESK_URL with $DESK_TOKEN.
package main

import (
	"context"
	_ "embed"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/desk-dev/desk/client"
)

// chartJS is the program the workspace runs: chart.mjs beside this file.
//
//go:embed chart.mjs
var chartJS string

// Some files for the chart to show.
var seed = map[string]int{"notes/todo.txt": 900, "notes/ideas.md": 2600, "src/main.go": 6100, "src/util.go": 3400, "README.md": 1500}

func main() {
	ws := flag.String("w", "image-example", "the workspace (created when missing)")
	out := flag.String("o", "chart.png", "where to save the PNG on this machine")
	flag.Parse()
	c, err := client.FromEnvironment(client.Options{})
	if err == nil {
		err = run(context.Background(), c, *ws, *out, os.Stdout)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "image:", err)
		os.Exit(1)
	}
}

// run draws the chart in workspace ws, saves the PNG the read tool returns
// at out and prints the chart's bars and its share link to w.
func run(ctx context.Context, c *client.Client, ws, out string, w io.Writer) error {
	if _, err := c.CreateWorkspace(ctx, ws); err != nil && client.ErrorCode(err) != "exists" {
		return err
	}
	for p, n := range seed {
		if _, err := c.WriteFile(ctx, ws, p, strings.NewReader(strings.Repeat("x", n)), client.WriteOptions{Parents: true}); err != nil {
			return err
		}
	}
	if _, err := c.WriteFile(ctx, ws, "chart.mjs", strings.NewReader(chartJS), client.WriteOptions{}); err != nil {
		return err
	}
	// The js backend runs the workspace's program on the workspace's files.
	r, err := c.Run(ctx, ws, client.ExecRequest{Backend: "js",
		Source: `import chart from "/workspace/chart.mjs"; export default () => chart("/workspace", "/workspace/chart.png");`})
	if err != nil {
		return err
	}
	if r.Status != client.StatusCompleted || r.ExitCode != 0 {
		return fmt.Errorf("chart.mjs: %s, exit %d: %s%s%s", r.Status, r.ExitCode, r.Error, r.Stdout, r.Stderr)
	}
	var drawn struct {
		Width, Height int
		Bars          []struct {
			Path string
			Size int64
		}
	}
	if err := json.Unmarshal(r.Value, &drawn); err != nil {
		return fmt.Errorf("chart.mjs's value %s: %w", r.Value, err)
	}
	fmt.Fprintf(w, "chart.png: %d×%d, %d bars\n", drawn.Width, drawn.Height, len(drawn.Bars))
	for _, b := range drawn.Bars {
		fmt.Fprintf(w, "  %6d  %s\n", b.Size, b.Path)
	}
	// The read tool (as an agent calls it over MCP) returns the PNG as an image.
	input, _ := json.Marshal(map[string]string{"path": "chart.png"})
	res, err := c.CallTool(ctx, ws, "read", input, nil)
	if err != nil {
		return err
	}
	if res.IsError || len(res.Content) == 0 || res.Content[0].Type != "image" {
		return fmt.Errorf("read tool: not an image: %+v", res)
	}
	if err := os.WriteFile(out, res.Content[0].Data, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(w, "saved %s (%s, %d bytes)\n", out, res.Content[0].MIMEType, len(res.Content[0].Data))
	sh, err := c.CreateShare(ctx, ws, client.ShareRequest{Path: "chart.png"})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "share link: %s\n", sh.URL)
	return nil
}
