package main

import (
	"encoding/json"
	"testing"
)

// TestUnescapeHTML checks that what encoding/json escapes comes back as the
// producer wrote it, and that everything else is kept byte for byte.
func TestUnescapeHTML(t *testing.T) {
	for _, raw := range []string{
		`"red shoes & socks"`,
		`{"a<b":"<script>&amp;</script>","s":"` + "\u2028\u2029" + `"}`,
		`["\\u003c stays","\"&\"","é",1e21,null]`,
		`"\u0000\n\t\\"`,
		`{"x":"\ud800"}`,
	} {
		var v json.RawMessage = []byte(raw)
		enc, err := json.Marshal(struct {
			V json.RawMessage `json:"v"`
		}{v})
		if err != nil {
			t.Fatal(err)
		}
		var back struct {
			V json.RawMessage `json:"v"`
		}
		if err := json.Unmarshal(enc, &back); err != nil {
			t.Fatal(err)
		}
		if got := string(unescapeHTML(back.V)); got != raw {
			t.Errorf("%s: encoded %s, unescaped %s", raw, back.V, got)
		}
	}
}
