package client

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// ImagePullRequest asks the server to pull an image from a registry into
// its machine's image store (POST /v1/images/pull, admin).
type ImagePullRequest struct {
	Ref  string `json:"ref"`            // REGISTRY/REPO:TAG or REGISTRY/REPO@sha256:HEX
	Name string `json:"name,omitempty"` // default Ref
	// Platform is OS/ARCH[/VARIANT] (default linux/ and the server's
	// architecture).
	Platform string `json:"platform,omitempty"`
	// AuthSecret is WS/SECRET: workspace WS's secret (value
	// USER:PASSWORD), sent only to the hosts it is bound to.
	AuthSecret string `json:"auth_secret,omitempty"`
	// MaxDownload bounds the compressed bytes received (default 8 GiB).
	MaxDownload int64 `json:"max_download,omitempty"`
	// Jobs is how many layers are fetched at once (default 3, at most 16).
	Jobs int `json:"jobs,omitempty"`
}

// Image is an image of the server's store.
type Image struct {
	ID         string    `json:"id"`
	Digest     string    `json:"digest"`
	Source     string    `json:"source,omitempty"` // the pinned reference of a pulled image
	Names      []string  `json:"names,omitempty"`
	Size       int64     `json:"size"`
	Added      time.Time `json:"added"`
	Env        []string  `json:"env,omitempty"`
	WorkingDir string    `json:"working_dir,omitempty"`
	User       string    `json:"user,omitempty"`
	UID        uint32    `json:"uid"`
	GID        uint32    `json:"gid"`
	Shell      string    `json:"shell"`
}

// ImageList answers GET /v1/images.
type ImageList struct {
	Images []Image `json:"images"`
}

// ImagePullProgress is a pull's state as it goes (the lines of a streamed
// POST /v1/images/pull).
type ImagePullProgress struct {
	// Event is "fetch" (a layer's download starts; Jobs layers are
	// fetched at once), "fetched" (it was received whole and verified),
	// "unpack" (its unpacking starts, in order) or "bytes" (more bytes
	// were received; Layer 0).
	Event  string `json:"event"`
	Layer  int    `json:"layer,omitempty"` // 1-based
	Layers int    `json:"layers,omitempty"`
	Digest string `json:"digest,omitempty"`
	Size   int64  `json:"size,omitempty"` // the layer's compressed size
	Done   int64  `json:"done"`           // bytes received so far
	Total  int64  `json:"total"`          // the compressed bytes the manifest declares
}

// ImagePullLine is one line of a streamed pull (Accept:
// application/x-ndjson): progress lines, then the image or an error.
type ImagePullLine struct {
	Progress *ImagePullProgress `json:"progress,omitempty"`
	Image    *Image             `json:"image,omitempty"`
	Error    *ToolError         `json:"error,omitempty"` // code and message, as a tool stream's
}

// PullImage pulls an image into the server's store (admin). It returns
// once the image is unpacked.
func (c *Client) PullImage(ctx context.Context, req ImagePullRequest) (Image, error) {
	var out Image
	err := c.call(ctx, "POST", "/v1/images/pull", nil, req, &out)
	return out, err
}

// PullImageProgress is PullImage with the answer streamed: progress
// receives each report as the layers arrive, then the image is returned.
func (c *Client) PullImageProgress(ctx context.Context, req ImagePullRequest, progress func(ImagePullProgress)) (Image, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return Image{}, fmt.Errorf("encode pull request: %w", err)
	}
	resp, err := c.do(ctx, request{method: "POST", path: "/v1/images/pull", body: bytes.NewReader(body), ctype: "application/json",
		header: http.Header{"Accept": {"application/x-ndjson"}}})
	if err != nil {
		return Image{}, err
	}
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	for {
		line, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			var l ImagePullLine
			if jerr := json.Unmarshal(line, &l); jerr != nil {
				return Image{}, fmt.Errorf("decode pull stream: %w", jerr)
			}
			switch {
			case l.Image != nil:
				return *l.Image, nil
			case l.Error != nil:
				return Image{}, &Error{Status: http.StatusOK, Code: l.Error.Code, Message: l.Error.Message}
			case l.Progress != nil:
				progress(*l.Progress)
			}
		}
		if err != nil {
			return Image{}, fmt.Errorf("read pull stream: %w", err)
		}
	}
}

// Images lists the server's images (admin).
func (c *Client) Images(ctx context.Context) (ImageList, error) {
	var out ImageList
	err := c.call(ctx, "GET", "/v1/images", nil, nil, &out)
	return out, err
}
