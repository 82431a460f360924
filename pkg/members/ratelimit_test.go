package members

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// TestAPFLimiter: the bucket limits until a response carries API Priority
// and Fairness's headers, and never after; a server without them stays
// limited.
func TestAPFLimiter(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		headers map[string]string
		limited bool
	}{
		{"a server with APF", map[string]string{"X-Kubernetes-PF-FlowSchema-UID": "fs", "X-Kubernetes-PF-PriorityLevel-UID": "pl"}, false},
		{"only the priority level header", map[string]string{"X-Kubernetes-PF-PriorityLevel-UID": "pl"}, false},
		{"a server without APF", nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				for k, v := range tc.headers {
					w.Header().Set(k, v)
				}
				_, _ = w.Write([]byte(`{"major":"1","minor":"33"}`))
			}))
			defer srv.Close()
			kubeconfig := writeKubeconfig(t, srv.URL)
			cfg, err := Access{Kubeconfig: kubeconfig, QPS: 0.001, Burst: 1}.RESTConfig(Member{Name: "m"})
			require.NoError(t, err)
			limiter, ok := cfg.RateLimiter.(*apfLimiter)
			require.True(t, ok, "one limiter for every client of the member: %T", cfg.RateLimiter)

			dc, err := discovery.NewDiscoveryClientForConfig(cfg)
			require.NoError(t, err)
			_, err = dc.ServerVersion()
			require.NoError(t, err, "the burst's one token")
			assert.Equal(t, tc.limited, !limiter.TryAccept(), "the bucket is empty; APF lifts it")
			assert.Equal(t, !tc.limited, limiter.apf.Load())
		})
	}
}

func writeKubeconfig(t *testing.T, server string) string {
	t.Helper()
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["m"] = &clientcmdapi.Cluster{Server: server}
	cfg.AuthInfos["m"] = &clientcmdapi.AuthInfo{Token: "t"}
	cfg.Contexts["m"] = &clientcmdapi.Context{Cluster: "m", AuthInfo: "m"}
	path := t.TempDir() + "/kubeconfig"
	require.NoError(t, clientcmd.WriteToFile(*cfg, path))
	return path
}
