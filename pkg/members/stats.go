package members

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
)

// RequestStats count the requests sent to each member in one run, and the
// writes among them (-v 4's timings). Safe for concurrent use.
type RequestStats struct {
	mu      sync.Mutex
	members map[string]*MemberRequests
}

// MemberRequests are one member's counts.
type MemberRequests struct {
	Requests atomic.Int64
	Writes   atomic.Int64
}

// Member returns the counters of member, creating them.
func (s *RequestStats) Member(member string) *MemberRequests {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.members == nil {
		s.members = map[string]*MemberRequests{}
	}
	m := s.members[member]
	if m == nil {
		m = &MemberRequests{}
		s.members[member] = m
	}
	return m
}

// countingTransport counts every request that reaches the network.
type countingTransport struct {
	next  http.RoundTripper
	count *MemberRequests
}

func (t *countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	t.count.Requests.Add(1)
	if req.Method != http.MethodGet && req.Method != http.MethodHead {
		t.count.Writes.Add(1)
	}
	return t.next.RoundTrip(req)
}

// WrappedRoundTripper lets client-go reach the transport below, to cancel
// requests.
func (t *countingTransport) WrappedRoundTripper() http.RoundTripper { return t.next }

// maxLoggedBody bounds the request bodies logged at -v 8.
const maxLoggedBody = 64 << 10

// requestBody reads req's body for the log, leaving it readable for the
// transport, with the values of a Secret's data and stringData replaced
// by "REDACTED". "" when there is none.
func requestBody(req *http.Request) string {
	if req.Body == nil || req.Body == http.NoBody {
		return ""
	}
	var raw []byte
	if req.GetBody != nil {
		body, err := req.GetBody()
		if err != nil {
			return ""
		}
		raw, _ = io.ReadAll(body)
		_ = body.Close()
	} else {
		var err error
		raw, err = io.ReadAll(req.Body)
		_ = req.Body.Close()
		req.Body = io.NopCloser(bytes.NewReader(raw))
		if err != nil {
			return ""
		}
	}
	return RedactBody(raw)
}

// RedactBody is a request body as logged at -v 8: a Secret's data and
// stringData values are replaced by "REDACTED" (as are those of Secrets in
// a list); a body that is not JSON is logged by size only, since it
// cannot be checked for Secrets.
func RedactBody(raw []byte) string {
	var obj any
	if err := json.Unmarshal(raw, &obj); err != nil {
		return fmt.Sprintf("<%d bytes, not JSON>", len(raw))
	}
	redactSecrets(obj)
	out, _ := json.Marshal(obj)
	if len(out) > maxLoggedBody {
		return string(out[:maxLoggedBody]) + fmt.Sprintf("... (%d bytes)", len(out))
	}
	return string(out)
}

func redactSecrets(v any) {
	m, ok := v.(map[string]any)
	if !ok {
		return
	}
	if m["kind"] == "Secret" {
		for _, field := range []string{"data", "stringData"} {
			if values, ok := m[field].(map[string]any); ok {
				for k := range values {
					values[k] = "REDACTED"
				}
			}
		}
	}
	if items, ok := m["items"].([]any); ok {
		for _, it := range items {
			redactSecrets(it)
		}
	}
}
