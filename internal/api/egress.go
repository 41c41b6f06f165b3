package api

import (
	"errors"
	"net/http"

	"github.com/desk-dev/desk/client"
	"github.com/desk-dev/desk/internal/egress"
)

// egressStore is the store of policies and secrets, or the error of a
// server that has none.
func (s *Server) egressStore() (*egress.Store, error) {
	if s.opts.Egress == nil {
		return nil, errorf(http.StatusNotImplemented, CodeInvalid, "this server keeps no egress policies")
	}
	return s.opts.Egress, nil
}

func wirePolicy(p egress.Policy) client.EgressPolicy {
	out := client.EgressPolicy{Mode: string(p.Mode)}
	for _, r := range p.Rules {
		out.Rules = append(out.Rules, client.EgressRule{Host: r.Host, Addr: r.Addr, Ports: r.Ports, Methods: r.Methods, Paths: r.Paths})
	}
	return out
}

// parsePolicy reads a policy's text or JSON form (a bad one is 400).
func parsePolicy(what, s string) (egress.Policy, error) {
	p, err := egress.Parse(s)
	if err != nil {
		return p, errorf(http.StatusBadRequest, CodeInvalid, "%s: %v", what, err)
	}
	return p, nil
}

func (s *Server) policyInfo(st *egress.Store, ws string) (client.PolicyInfo, error) {
	p, ok, err := st.Policy(ws)
	if err != nil {
		return client.PolicyInfo{}, err
	}
	src := "workspace"
	if !ok {
		p, src = s.opts.EgressDefault, "default"
		if p.Mode == "" {
			p.Mode = egress.None
		}
	}
	return client.PolicyInfo{Workspace: ws, Source: src, Policy: wirePolicy(p), Text: p.String()}, nil
}

func (s *Server) handleGetPolicy(w http.ResponseWriter, r *http.Request, c *call) error {
	st, err := workspaceStore(s, w, r, c, s.egressStore, nil)
	if err != nil {
		return err
	}
	info, err := s.policyInfo(st, c.ws)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, info)
}

func (s *Server) handleSetPolicy(w http.ResponseWriter, r *http.Request, c *call) error {
	var req client.PolicyRequest
	st, err := workspaceStore(s, w, r, c, s.egressStore, &req)
	if err != nil {
		return err
	}
	var p egress.Policy
	if req.Text != "" {
		if req.Mode != "" || len(req.Rules) > 0 {
			return errorf(http.StatusBadRequest, CodeInvalid, "give text, or mode and rules, not both")
		}
		if p, err = parsePolicy("text", req.Text); err != nil {
			return err
		}
	} else {
		p.Mode = egress.Mode(req.Mode)
		for _, x := range req.Rules {
			p.Rules = append(p.Rules, egress.Rule{Host: x.Host, Addr: x.Addr, Ports: x.Ports, Methods: x.Methods, Paths: x.Paths})
		}
		if p, err = p.Validate(); err != nil {
			return errorf(http.StatusBadRequest, CodeInvalid, "policy: %v", err)
		}
	}
	if err := st.SetPolicy(c.ws, p); err != nil {
		return err
	}
	s.opts.Logger.Info("egress policy set", "workspace", c.ws, "policy", p.String())
	info, err := s.policyInfo(st, c.ws)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, info)
}

func (s *Server) handleDeletePolicy(w http.ResponseWriter, r *http.Request, c *call) error {
	st, err := workspaceStore(s, w, r, c, s.egressStore, nil)
	if err != nil {
		return err
	}
	if err := st.DeletePolicy(c.ws); err != nil {
		return err
	}
	s.opts.Logger.Info("egress policy removed: the server's default applies", "workspace", c.ws)
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func wireSecret(i egress.SecretInfo) client.Secret {
	return client.Secret{Name: i.Name, Hosts: i.Hosts, Placeholder: i.Placeholder}
}

func (s *Server) handleSetSecret(w http.ResponseWriter, r *http.Request, c *call) error {
	var req client.SecretRequest
	st, err := workspaceStore(s, w, r, c, s.egressStore, &req)
	if err != nil {
		return err
	}
	info, err := st.SetSecret(c.ws, r.PathValue("name"), req.Value, req.Hosts)
	if errors.Is(err, egress.ErrInvalid) {
		return errorf(http.StatusBadRequest, CodeInvalid, "%v", err) // never holds the value
	}
	if err != nil {
		return err
	}
	s.opts.Logger.Info("secret set", "workspace", c.ws, "name", info.Name, "hosts", info.Hosts)
	return writeJSON(w, http.StatusOK, wireSecret(info))
}

func (s *Server) handleListSecrets(w http.ResponseWriter, r *http.Request, c *call) error {
	st, err := workspaceStore(s, w, r, c, s.egressStore, nil)
	if err != nil {
		return err
	}
	all, err := st.Secrets(c.ws)
	if err != nil {
		return err
	}
	out := client.SecretList{Secrets: []client.Secret{}}
	for _, i := range all {
		out.Secrets = append(out.Secrets, wireSecret(i))
	}
	return writeJSON(w, http.StatusOK, out)
}

func (s *Server) handleDeleteSecret(w http.ResponseWriter, r *http.Request, c *call) error {
	st, err := s.egressStore()
	if err != nil {
		return err
	}
	err = st.DeleteSecret(c.ws, r.PathValue("name"))
	if errors.Is(err, egress.ErrNotFound) {
		return errorf(http.StatusNotFound, CodeNotFound, "no secret %q in workspace %s", r.PathValue("name"), c.ws)
	}
	if err != nil {
		return err
	}
	s.opts.Logger.Info("secret deleted", "workspace", c.ws, "name", r.PathValue("name"))
	w.WriteHeader(http.StatusNoContent)
	return nil
}
