package api

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/desk-dev/desk/client"
)

// ImageService is the server machine's image store (desk serve: package
// image's, through cmd/desk), for POST /v1/images/pull and GET /v1/images.
// Its errors should be *Error values where they are the request's fault
// (a bad reference 400, an image too large 413, a hostile one 422, the
// registry's refusal 502).
type ImageService interface {
	// Pull pulls req.Ref; progress, if not nil, is called as it goes
	// (serialised).
	Pull(ctx context.Context, req client.ImagePullRequest, progress func(client.ImagePullProgress)) (client.Image, error)
	List(ctx context.Context) ([]client.Image, error)
}

func (s *Server) images() (ImageService, error) {
	if s.opts.Images == nil {
		return nil, errorf(http.StatusNotImplemented, CodeNotImplemented, "this server has no image store")
	}
	return s.opts.Images, nil
}

// handlePullImage pulls an image (admin): it answers once the image is
// unpacked, which may take minutes; with Accept: application/x-ndjson the
// answer is streamed: {"progress": ...} lines as the layers arrive, then
// {"image": ...} or {"error": {code, message}}.
func (s *Server) handlePullImage(w http.ResponseWriter, r *http.Request, c *call) error {
	is, err := s.images()
	if err != nil {
		return err
	}
	var req client.ImagePullRequest
	if err := s.readJSON(w, r, &req, false); err != nil {
		return err
	}
	if req.Ref == "" {
		return errorf(http.StatusBadRequest, CodeInvalid, "ref: want an image reference (REGISTRY/REPO:TAG or @sha256:DIGEST)")
	}
	if !strings.Contains(r.Header.Get("Accept"), "application/x-ndjson") {
		img, err := is.Pull(r.Context(), req, nil)
		if err != nil {
			return err
		}
		return writeJSON(w, http.StatusCreated, img)
	}
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	enc := json.NewEncoder(w)
	rc := http.NewResponseController(w)
	rc.Flush()
	img, err := is.Pull(r.Context(), req, func(p client.ImagePullProgress) {
		enc.Encode(client.ImagePullLine{Progress: &p})
		rc.Flush()
	})
	if err != nil {
		e := classify(err)
		s.opts.Logger.Info("image pull failed", "ref", req.Ref, "err", err)
		enc.Encode(client.ImagePullLine{Error: &client.ToolError{Code: e.Code, Message: e.Message}})
	} else {
		enc.Encode(client.ImagePullLine{Image: &img})
	}
	rc.Flush()
	return nil
}

// handleListImages lists the store's images (admin).
func (s *Server) handleListImages(w http.ResponseWriter, r *http.Request, c *call) error {
	is, err := s.images()
	if err != nil {
		return err
	}
	l, err := is.List(r.Context())
	if err != nil {
		return err
	}
	if l == nil {
		l = []client.Image{}
	}
	return writeJSON(w, http.StatusOK, client.ImageList{Images: l})
}
