package chat

import (
	"crypto/rand"
	"encoding/hex"
	"net/http"
)

// The audit labels' headers (docs/api.md): the server's audit journal
// records them with every call, so `desk audit WS --session ID` lists what
// one session of the agent did, turn by turn.
const (
	HeaderAgent   = "X-Desk-Agent"
	HeaderSession = "X-Desk-Session"
	HeaderModel   = "X-Desk-Model"
	HeaderTurn    = "X-Desk-Turn"
)

// AgentLabel is the agent's X-Desk-Agent label.
const AgentLabel = "desk-agent-example"

// SessionLabels returns the labels every desk request of a session
// carries: the agent, the session (session, or a new random id when
// empty) and the model. The turn is added per call.
func SessionLabels(session, model string) http.Header {
	if session == "" {
		var b [8]byte
		rand.Read(b[:])
		session = hex.EncodeToString(b[:])
	}
	return http.Header{HeaderAgent: {AgentLabel}, HeaderSession: {session}, HeaderModel: {model}}
}
