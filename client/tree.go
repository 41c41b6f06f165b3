package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
)

// TreeSummary is the answer to a tree upload: what the archive held and
// what was written.
type TreeSummary struct {
	Path      string   `json:"path"`      // the destination directory
	Files     int64    `json:"files"`     // regular files with their content
	Dirs      int64    `json:"dirs"`      // directories, the destination's own entry included
	Symlinks  int64    `json:"symlinks"`  // symbolic links
	Hardlinks int64    `json:"hardlinks"` // extra names of files counted in files
	Special   int64    `json:"special"`   // FIFOs, sockets and devices
	Bytes     int64    `json:"bytes"`     // file content bytes written
	Xattrs    int64    `json:"xattrs"`    // extended attributes written
	Skipped   int64    `json:"skipped"`   // entries left out (see warnings)
	Warnings  []string `json:"warnings,omitempty"`
}

// Archive formats of GetTree and PutTree.
const (
	FormatTar = "tar"
	FormatTgz = "tgz"
	FormatZip = "zip"
)

// TreeOptions configure PutTree.
type TreeOptions struct {
	// Format is the archive's format: FormatZip, or FormatTar for a tar,
	// plain or gzip-compressed. Empty: the server recognises it from its
	// first bytes.
	Format string
	// SkipSpecial skips device files and FIFOs (the summary's warnings say
	// which) instead of refusing the archive.
	SkipSpecial bool
	// Owners applies the archive's uid and gid.
	Owners bool
	// KeepDestAttrs leaves an existing destination directory's own mode
	// and times alone.
	KeepDestAttrs bool
}

func treePath(ws, p string) string { return wsPath(ws, "/tree/", escapePath(p)) }

// PutTree streams an archive (tar, tgz or zip) into the workspace directory
// dest: created with its parents if missing, merged into if it exists
// (files replaced), all or nothing.
func (c *Client) PutTree(ctx context.Context, ws, dest string, r io.Reader, o TreeOptions) (TreeSummary, error) {
	q := url.Values{}
	for name, v := range map[string]bool{"skip_special": o.SkipSpecial, "owners": o.Owners, "keep_dest_attrs": o.KeepDestAttrs} {
		if v {
			q.Set(name, "1")
		}
	}
	ctype := "application/octet-stream"
	switch o.Format {
	case FormatZip:
		ctype = "application/zip"
	case FormatTar, FormatTgz:
		ctype = "application/x-tar"
	}
	resp, err := c.do(ctx, request{method: "PUT", path: treePath(ws, dest), query: q, body: r, ctype: ctype})
	if err != nil {
		return TreeSummary{}, err
	}
	defer resp.Body.Close()
	var s TreeSummary
	if err := json.NewDecoder(resp.Body).Decode(&s); err != nil {
		return TreeSummary{}, fmt.Errorf("decode tree upload response: %w", err)
	}
	return s, nil
}

// Tree is an archive being downloaded (GetTree). Read it to its end: a
// download that failed on the server after it began ends with an error
// (the server's message, from the X-Desk-Error trailer) instead of EOF.
type Tree struct {
	// Type is what the path is: TypeDir (an archive of its tree) or
	// TypeFile (an archive of one entry, named by its base name).
	Type string
	body io.ReadCloser
	resp *http.Response
}

// Read reads the archive.
func (t *Tree) Read(p []byte) (int, error) {
	n, err := t.body.Read(p)
	if err == io.EOF {
		if msg := t.resp.Trailer.Get("X-Desk-Error"); msg != "" {
			return n, &Error{Status: http.StatusInternalServerError, Code: "download_failed", Message: msg}
		}
	}
	return n, err
}

// Summary is what the archive held, as the server counted it: known once
// the archive has been read to its end (zero before, or from an older
// server).
func (t *Tree) Summary() TreeSummary {
	var s TreeSummary
	if v := t.resp.Trailer.Get("X-Desk-Summary"); v != "" {
		json.Unmarshal([]byte(v), &s)
	}
	return s
}

// Close ends the download.
func (t *Tree) Close() error { return t.body.Close() }

// GetTreeOptions configure GetTree.
type GetTreeOptions struct {
	// Format is FormatTar (the default), FormatTgz or FormatZip.
	Format string
	// NoFollow archives a symlink at the path itself (one entry), instead
	// of what it points to.
	NoFollow bool
}

// GetTree downloads the workspace path src (a symlink followed, unless
// NoFollow) as an archive, streamed: a directory's tree, or one entry for
// anything else.
func (c *Client) GetTree(ctx context.Context, ws, src string, o GetTreeOptions) (*Tree, error) {
	q := url.Values{}
	if o.Format != "" {
		q.Set("format", o.Format)
	}
	if o.NoFollow {
		q.Set("nofollow", "1")
	}
	resp, err := c.do(ctx, request{method: "GET", path: treePath(ws, src), query: q})
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, errors.New("get tree: unexpected status " + resp.Status)
	}
	return &Tree{Type: resp.Header.Get("X-Desk-Type"), body: resp.Body, resp: resp}, nil
}
