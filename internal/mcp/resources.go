package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/desk-dev/desk/internal/tools"
)

// URIScheme is the scheme of the resource URIs of workspace files:
// desk://WORKSPACE/PATH, PATH being the file's workspace path without its
// leading slash (desk://demo/workspace/src/main.go).
const URIScheme = "desk"

// ResourceURI returns the resource URI of a file of workspace ws.
func ResourceURI(ws, p string) string {
	u := url.URL{Scheme: URIScheme, Host: ws, Path: p}
	return u.String()
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
		Description: "A file of the workspace " + ws.Name() + " by its path (desk://" + ws.Name() + "/workspace/src/main.go). Text files are returned as text, others as base64 blobs; at most " + strconv.FormatInt(opts.MaxResourceBytes>>20, 10) + " MiB.",
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
		p := path.Clean("/" + u.Path)
		data, err := ws.ReadFile(ctx, p, opts.MaxResourceBytes)
		if err != nil {
			if te, ok := err.(*tools.Error); ok && te.Code == tools.CodeNotFound {
				return nil, sdk.ResourceNotFoundError(req.Params.URI)
			}
			return nil, err
		}
		c := &sdk.ResourceContents{URI: req.Params.URI, MIMEType: mimeType(p, data)}
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
// in name order; the cursor is the number of files listed before.
func listResources(ctx context.Context, ws Workspace, req *sdk.ListResourcesRequest, opts *Options) (*sdk.ListResourcesResult, error) {
	offset := 0
	if req.Params != nil && req.Params.Cursor != "" {
		n, err := strconv.Atoi(req.Params.Cursor)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("invalid cursor %q", req.Params.Cursor)
		}
		offset = n
	}
	in, _ := json.Marshal(map[string]any{"pattern": "**", "offset": offset, "limit": opts.ResourcePage})
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
		Truncated  bool `json:"truncated"`
		NextOffset int  `json:"next_offset"`
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
			URI: ResourceURI(ws.Name(), m.Path), Name: strings.TrimPrefix(m.Path, "/"),
			MIMEType: mimeType(m.Path, nil), Size: m.Size,
		})
	}
	if out.Truncated {
		lr.NextCursor = strconv.Itoa(out.NextOffset)
	}
	return lr, nil
}

// mimeTypes are the types of common extensions. A fixed table, not the
// system's mime.types, so answers do not depend on the machine.
var mimeTypes = map[string]string{
	".txt": "text/plain; charset=utf-8", ".md": "text/markdown; charset=utf-8", ".html": "text/html; charset=utf-8",
	".css": "text/css; charset=utf-8", ".csv": "text/csv; charset=utf-8", ".xml": "text/xml; charset=utf-8",
	".js": "text/javascript; charset=utf-8", ".mjs": "text/javascript; charset=utf-8", ".ts": "text/x-typescript; charset=utf-8",
	".json": "application/json", ".yaml": "application/yaml", ".yml": "application/yaml", ".toml": "application/toml",
	".go": "text/x-go; charset=utf-8", ".py": "text/x-python; charset=utf-8", ".rs": "text/x-rust; charset=utf-8",
	".c": "text/x-c; charset=utf-8", ".h": "text/x-c; charset=utf-8", ".java": "text/x-java; charset=utf-8",
	".sh":  "text/x-shellscript; charset=utf-8",
	".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif", ".webp": "image/webp",
	".svg": "image/svg+xml", ".pdf": "application/pdf", ".zip": "application/zip", ".gz": "application/gzip",
	".tar": "application/x-tar", ".wasm": "application/wasm",
}

// mimeType returns a file's type by its extension, else by its content
// (when given), else "" (unknown).
func mimeType(p string, data []byte) string {
	if t := mimeTypes[strings.ToLower(path.Ext(p))]; t != "" {
		return t
	}
	if data != nil {
		return http.DetectContentType(data)
	}
	return ""
}
