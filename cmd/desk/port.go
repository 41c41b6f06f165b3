package main

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/desk-dev/desk/client"
	"github.com/desk-dev/desk/internal/api"
	"github.com/desk-dev/desk/internal/api/sandboxports"
	deskrun "github.com/desk-dev/desk/internal/run"
	"github.com/desk-dev/desk/internal/sandbox"
)

// portGroup is `desk port`: the ports services listen on in a workspace's
// sandbox.
var portGroup = &group{
	name: "port",
	summary: "The TCP ports services listen on in a workspace's sandbox: list them, and make\n" +
		"expiring preview links anyone holding may open (desk port-forward forwards a\n" +
		"local port; every port has a preview URL, /v1/workspaces/WS/ports/PORT/).",
}

func init() {
	portGroup.verbs = []groupVerb{
		{portLsSpec, runPortLs},
		{portShareSpec, runPortShare},
		{portLinksSpec, runPortLinks},
		{portUnshareSpec, runPortUnshare},
	}
}

var portLsSpec = &cmdSpec{
	name: "port ls", synopsis: "WS [--json]", minArgs: 1, maxArgs: 1,
	summary: "list the TCP ports listening in the workspace's sandbox, with their processes and executions",
}

func runPortLs(ctx context.Context, args []string, st streams) int {
	cmd, fl := portLsSpec.remoteCmd()
	asJSON := fl.Bool("json", false, "print the list as JSON")
	return cmd.run(args, st, nil, func(c *client.Client, pos []string) error {
		l, err := c.Ports(ctx, pos[0])
		if err != nil {
			return err
		}
		if *asJSON {
			return json.NewEncoder(st.out).Encode(l)
		}
		tw := tabwriter.NewWriter(st.out, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "PORT\tADDRESS\tPID\tCOMMAND\tEXECUTION\tPREVIEW")
		for _, p := range l.Ports {
			fmt.Fprintf(tw, "%d\t%s\t%d\t%s\t%s\t%s\n", p.Port, p.Addr, p.PID, p.Command, p.Execution, p.Preview)
		}
		return tw.Flush()
	})
}

var portShareSpec = &cmdSpec{
	name: "port share", synopsis: "WS PORT [--expires 1h] [--json]", minArgs: 2, maxArgs: 2,
	summary: "print an expiring preview link to a port: anyone holding it reaches the service",
	help: `The link is printed alone on standard output (URL=$(desk port share demo 8000)).
Anyone holding it reaches the port's service through the server, without a
token, until it expires (--expires, default 1h, at most 7d: 168h); a browser
keeps it as a cookie for the port's pages. The link's id is printed on
standard error: desk port unshare WS ID revokes it (desk port links WS lists
them). Links are signed with the server's key (port-links.key in the data
directory; replacing that file and restarting the server ends every link).`,
}

func runPortShare(ctx context.Context, args []string, st streams) int {
	cmd, fl := portShareSpec.remoteCmd()
	expires := fl.String("expires", "1h", "how long the link works: a duration (90m, 36h) or days (7d); at most 7d")
	asJSON := fl.Bool("json", false, "print the link as JSON")
	var port int
	var ttl time.Duration
	check := func(pos []string) (err error) {
		if port, err = parsePort(pos[1]); err != nil {
			return err
		}
		if ttl, err = parseExpiry(*expires); err != nil {
			return err
		}
		if ttl > api.MaxPortLinkTTL {
			return usagef("--expires %s is over the limit of 7d (168h)", *expires)
		}
		return nil
	}
	return cmd.run(args, st, check, func(c *client.Client, pos []string) error {
		l, err := c.SharePort(ctx, pos[0], client.PortLinkRequest{Port: port, ExpiresIn: int64(ttl / time.Second)})
		if err != nil {
			return err
		}
		if *asJSON {
			return json.NewEncoder(st.out).Encode(l)
		}
		fmt.Fprintln(st.out, l.URL)
		fmt.Fprintf(st.err, "desk port share: link %s to port %d of %s until %s\n", l.ID, l.Port, l.Workspace, l.Expires.Local().Format(time.DateTime))
		return nil
	})
}

var portLinksSpec = &cmdSpec{
	name: "port links", synopsis: "WS [--json]", minArgs: 1, maxArgs: 1,
	summary: "list the workspace's unexpired port links (id, port, expiry, revoked), never their URLs",
}

func runPortLinks(ctx context.Context, args []string, st streams) int {
	cmd, fl := portLinksSpec.remoteCmd()
	asJSON := fl.Bool("json", false, "print the list as JSON")
	return cmd.run(args, st, nil, func(c *client.Client, pos []string) error {
		l, err := c.PortLinks(ctx, pos[0])
		if err != nil {
			return err
		}
		if *asJSON {
			return json.NewEncoder(st.out).Encode(l)
		}
		tw := tabwriter.NewWriter(st.out, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tPORT\tCREATED\tEXPIRES\tREVOKED")
		for _, x := range l.Links {
			rev := "-"
			if x.Revoked != nil {
				rev = x.Revoked.Local().Format(time.DateTime)
			}
			fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\n", x.ID, x.Port, x.Created.Local().Format(time.DateTime), x.Expires.Local().Format(time.DateTime), rev)
		}
		return tw.Flush()
	})
}

var portUnshareSpec = &cmdSpec{
	name: "port unshare", synopsis: "WS ID", minArgs: 2, maxArgs: 2,
	summary: "revoke a port link by its id (desk port share prints it, desk port links lists them): it is refused from now on",
}

func runPortUnshare(ctx context.Context, args []string, st streams) int {
	cmd, _ := portUnshareSpec.remoteCmd()
	return cmd.run(args, st, nil, func(c *client.Client, pos []string) error {
		return c.RevokePortLink(ctx, pos[0], pos[1])
	})
}

// parsePort parses a TCP port argument.
func parsePort(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > 65535 {
		return 0, usagef("port %q: want a TCP port, 1 to 65535", s)
	}
	return n, nil
}

var portForwardSpec = &cmdSpec{
	name: "port-forward", synopsis: "WS PORT [LOCAL] [--address 127.0.0.1]", minArgs: 2, maxArgs: 3,
	summary: "forward a local TCP port to a port of the workspace's sandbox, until Ctrl-C",
	help: `Like kubectl port-forward: desk listens on --address:LOCAL (default 127.0.0.1
and the same port number; LOCAL 0 picks a free one) and carries each
connection to PORT in the workspace's sandbox through the server (GET
/v1/workspaces/WS/port-forward/PORT, upgraded). It prints "Forwarding from
ADDRESS:LOCAL -> PORT" once it listens, and one line per connection that
fails. The token needs the exec scope.`,
}

func runPortForward(ctx context.Context, args []string, st streams) int {
	cmd, fl := portForwardSpec.remoteCmd()
	addr := fl.String("address", "127.0.0.1", "the local address to listen on")
	var port, local int
	check := func(pos []string) (err error) {
		if port, err = parsePort(pos[1]); err != nil {
			return err
		}
		local = port
		if len(pos) == 3 {
			if pos[2] == "0" {
				local = 0
			} else if local, err = parsePort(pos[2]); err != nil {
				return err
			}
		}
		return nil
	}
	return cmd.run(args, st, check, func(c *client.Client, pos []string) error {
		ln, err := net.Listen("tcp", net.JoinHostPort(*addr, strconv.Itoa(local)))
		if err != nil {
			return fmt.Errorf("listen: %w", err)
		}
		defer ln.Close()
		fmt.Fprintf(st.out, "Forwarding from %s -> %d\n", ln.Addr(), port)
		stop := context.AfterFunc(ctx, func() { ln.Close() })
		defer stop()
		var wg sync.WaitGroup
		defer wg.Wait()
		var mu sync.Mutex
		conns := map[net.Conn]bool{}
		defer func() {
			mu.Lock()
			for c := range conns {
				c.Close()
			}
			mu.Unlock()
		}()
		for {
			lc, err := ln.Accept()
			if err != nil {
				if ctx.Err() != nil {
					return nil
				}
				return fmt.Errorf("accept: %w", err)
			}
			mu.Lock()
			conns[lc] = true
			mu.Unlock()
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer func() {
					mu.Lock()
					delete(conns, lc)
					mu.Unlock()
					lc.Close()
				}()
				dctx, cancel := context.WithTimeout(ctx, 30*time.Second)
				rc, err := c.DialPort(dctx, pos[0], port)
				cancel()
				if err != nil {
					fmt.Fprintf(st.err, "desk port-forward: connection from %s: %v\n", lc.RemoteAddr(), err)
					return
				}
				defer rc.Close()
				pipe(lc, rc)
			}()
		}
	})
}

// pipe copies a → b and b → a, passing each end on as a half-close, until
// both directions have ended or one failed.
func pipe(a, b net.Conn) {
	var wg sync.WaitGroup
	wg.Add(2)
	cp := func(dst, src net.Conn) {
		defer wg.Done()
		if _, err := io.Copy(dst, src); err != nil {
			a.Close()
			b.Close()
			return
		}
		if h, ok := dst.(interface{ CloseWrite() error }); ok {
			h.CloseWrite()
		} else {
			dst.Close()
		}
	}
	go cp(a, b)
	go cp(b, a)
	wg.Wait()
}

// portConfig is the API's ports: the sandbox backend's, when backends has
// it, and links signed with key (nil: none).
func portConfig(backends map[string]deskrun.Backend, key []byte) api.PortConfig {
	pc := api.PortConfig{LinkKey: key}
	if sb, ok := backends[sandbox.ID].(*sandbox.Backend); ok {
		pc.Dialer = sandboxports.New(sb)
	}
	return pc
}

// portLinkKeyFile is the port links' signing key in the data directory,
// and portLinksFile the record of the links made (api.PortLinks).
const (
	portLinkKeyFile = "port-links.key"
	portLinksFile   = "port-links.json"
)

// portLinkKey reads the data directory's port link key, making it (32
// random bytes, 0600) on the first start.
func portLinkKey(dataDir string) ([]byte, error) {
	p := filepath.Join(dataDir, portLinkKeyFile)
	b, err := os.ReadFile(p)
	if err == nil {
		if len(b) < api.MinPortLinkKey {
			return nil, fmt.Errorf("read port link key %s: %d bytes, want %d (remove the file to make a new one)", p, len(b), api.MinPortLinkKey)
		}
		return b, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("read port link key: %w", err)
	}
	b = make([]byte, api.MinPortLinkKey)
	rand.Read(b)
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return portLinkKey(dataDir) // made meanwhile
	}
	if err != nil {
		return nil, fmt.Errorf("make port link key: %w", err)
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		os.Remove(p)
		return nil, fmt.Errorf("make port link key: %w", err)
	}
	if err := f.Close(); err != nil {
		return nil, fmt.Errorf("make port link key: %w", err)
	}
	return b, nil
}
