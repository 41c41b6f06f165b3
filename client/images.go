package client

import (
	"context"
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

// PullImage pulls an image into the server's store (admin). It returns
// once the image is unpacked.
func (c *Client) PullImage(ctx context.Context, req ImagePullRequest) (Image, error) {
	var out Image
	err := c.call(ctx, "POST", "/v1/images/pull", nil, req, &out)
	return out, err
}

// Images lists the server's images (admin).
func (c *Client) Images(ctx context.Context) (ImageList, error) {
	var out ImageList
	err := c.call(ctx, "GET", "/v1/images", nil, nil, &out)
	return out, err
}
