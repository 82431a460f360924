package members

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRedactBodyHidesSecretValues(t *testing.T) {
	got := RedactBody([]byte(`{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"},"data":{"password":"c2VjcmV0"},"stringData":{"token":"hunter2"}}`))
	assert.NotContains(t, got, "c2VjcmV0")
	assert.NotContains(t, got, "hunter2")
	assert.Contains(t, got, `"password":"REDACTED"`)
	assert.Contains(t, got, `"token":"REDACTED"`)

	list := RedactBody([]byte(`{"kind":"List","items":[{"kind":"Secret","data":{"k":"dmFsdWU="}},{"kind":"ConfigMap","data":{"k":"shown"}}]}`))
	assert.NotContains(t, list, "dmFsdWU=")
	assert.Contains(t, list, "shown", "a ConfigMap's data is not secret")

	assert.Equal(t, "<4 bytes, not JSON>", RedactBody([]byte("a: b")))
}

func TestLoggingTransportLogsBodiesRedactedAndCounts(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	var log strings.Builder
	stats := &RequestStats{}
	var rt http.RoundTripper = &countingTransport{next: http.DefaultTransport, count: stats.Member("c1")}
	rt = &loggingTransport{next: rt, out: &log, member: "c1", bodies: true}
	req, err := http.NewRequest(http.MethodPatch, srv.URL+"/api/v1/namespaces/a/secrets/s", strings.NewReader(`{"kind":"Secret","data":{"k":"c2VjcmV0"}}`))
	require.NoError(t, err)
	resp, err := rt.RoundTrip(req)
	require.NoError(t, err)
	_ = resp.Body.Close()
	assert.Contains(t, log.String(), `[c1] request body of PATCH `)
	assert.Contains(t, log.String(), `"k":"REDACTED"`)
	assert.NotContains(t, log.String(), "c2VjcmV0")
	assert.Equal(t, int64(1), stats.Member("c1").Requests.Load())
	assert.Equal(t, int64(1), stats.Member("c1").Writes.Load())
}
