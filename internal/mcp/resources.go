package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/desk-dev/desk/internal/mediatype"
	"github.com/desk-dev/desk/internal/tools"
	"github.com/desk-dev/desk/internal/wspath"
)

// URIScheme is the scheme of the resource URIs of workspace files:
// desk://WORKSPACE/PATH, PATH being a workspace path as every surface takes
// one (package wspath): relative to /workspace (desk://demo/src/main.go is
// /workspace/src/main.go) or absolute, with its slash (desk://demo//etc/x is
// /etc/x).
const URIScheme = "desk"

// ResourceURI returns the resource URI of the file p (a clean absolute store
// path) of workspace ws, in its shortest form: relative for a file under
// /workspace.
func ResourceURI(ws, p string) string {
	u := url.URL{Scheme: URIScheme, Host: ws, Path: "/" + wspath.Rel(p)}
	return u.String()
}

// resourcePath returns the clean absolute store path a resource URI's path
// names: the path after desk://WORKSPACE/, resolved by wspath.Resolve.
func resourcePath(uriPath string) string {
	return wspath.Resolve(strings.TrimPrefix(uriPath, "/"))
}

// addResources exposes ws's files as resources: a template for reading
// any path, and resources/list answering with the files under /workspace,
// paged (the list is computed per request, through the find tool, so it is
// always current). Reading needs the read tool's permission.
func addResources(srv *sdk.Server, ws Workspace, defs []tools.Tool, opts *Options) {
	var readTool *tools.Tool
	var findOK bool
	for i := range defs {
		switch defs[i].Name {
		case "read":
			readTool = &defs[i]
		case "find":
			findOK = true
		}
	}
	if readTool == nil || !findOK {
		return // a token that may not read gets no resources
	}
	tmpl := URIScheme + "://" + ws.Name() + "/{+path}"
	srv.AddResourceTemplate(&sdk.ResourceTemplate{
		Name: "file", Title: "Workspace file", URITemplate: tmpl,
		Description: "A file of the workspace " + ws.Name() + " by its path (desk://" + ws.Name() + "/src/main.go is /workspace/src/main.go; desk://" + ws.Name() + "//etc/hosts an absolute path). Text files are returned as text, others as base64 blobs; at most " + strconv.FormatInt(opts.MaxResourceBytes>>20, 10) + " MiB.",
	}, func(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
		if opts.Authorize != nil {
			if err := opts.Authorize(ctx, req, *readTool, nil); err != nil {
				return nil, err
			}
		}
		u, err := url.Parse(req.Params.URI)
		if err != nil || u.Scheme != URIScheme || u.Host != ws.Name() {
			return nil, sdk.ResourceNotFoundError(req.Params.URI)
		}
		p := resourcePath(u.Path)
		data, err := ws.ReadFile(ctx, p, opts.MaxResourceBytes)
		if err != nil {
			if te, ok := err.(*tools.Error); ok && te.Code == tools.CodeNotFound {
				return nil, sdk.ResourceNotFoundError(req.Params.URI)
			}
			return nil, err
		}
		c := &sdk.ResourceContents{URI: req.Params.URI, MIMEType: mediatype.Of(p, data)}
		if utf8.Valid(data) && !strings.ContainsRune(string(data[:min(len(data), 8000)]), 0) {
			c.Text = string(data)
		} else {
			c.Blob = data
		}
		return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{c}}, nil
	})
	srv.AddReceivingMiddleware(func(next sdk.MethodHandler) sdk.MethodHandler {
		return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
			lr, ok := req.(*sdk.ListResourcesRequest)
			if method != "resources/list" || !ok {
				return next(ctx, method, req)
			}
			return listResources(ctx, ws, lr, opts)
		}
	})
}

// listResources lists one page of the files under /workspace, depth first
// in name order; the cursor is the find tool's next_cursor (a number, as
// earlier servers gave, is taken as an offset).
func listResources(ctx context.Context, ws Workspace, req *sdk.ListResourcesRequest, opts *Options) (*sdk.ListResourcesResult, error) {
	args := map[string]any{"pattern": "**", "limit": opts.ResourcePage}
	if req.Params != nil && req.Params.Cursor != "" {
		if n, err := strconv.Atoi(req.Params.Cursor); err == nil && n >= 0 {
			args["offset"] = n
		} else {
			args["cursor"] = req.Params.Cursor
		}
	}
	in, _ := json.Marshal(args)
	res, err := ws.Call(ctx, "find", in, nil)
	if err != nil {
		return nil, err
	}
	// The structured output is a *tools.FindOutput in process, JSON from a
	// remote server: read both through JSON.
	b, _ := json.Marshal(res.Structured)
	var out struct {
		Matches []struct {
			Path string `json:"path"`
			Type string `json:"type"`
			Size int64  `json:"size"`
		} `json:"matches"`
		NextCursor string `json:"next_cursor"`
	}
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("list files: %w", err)
	}
	lr := &sdk.ListResourcesResult{Resources: []*sdk.Resource{}}
	for _, m := range out.Matches {
		if m.Type != "file" {
			continue
		}
		lr.Resources = append(lr.Resources, &sdk.Resource{
			URI: ResourceURI(ws.Name(), m.Path), Name: wspath.Rel(m.Path),
			MIMEType: mediatype.ByName(m.Path), Size: m.Size,
		})
	}
	// Set when more matches follow and when the walk stopped at its bound.
	lr.NextCursor = out.NextCursor
	return lr, nil
}
