package apply

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fedctl/fedctl/pkg/members"
)

// TestApplyBuildsOneClientPerMember: the live read that plans an RSP's
// replicas and the push of one run share each member's client, so
// a member's types are discovered once (one GET of /api and one of /apis),
// not once by the live read and again by the push.
func TestApplyBuildsOneClientPerMember(t *testing.T) {
	dir := t.TempDir()
	const ns = "oneclient"
	write(t, dir, namespaceDoc(ns)+deploymentDoc(ns, "web", "nginx", 3, "", allClusters, "")+rspDoc(ns, "web", 3))
	var mu sync.Mutex
	built := map[string]int{}
	count := func(cluster string, c members.Client) members.Client {
		mu.Lock()
		defer mu.Unlock()
		built[cluster]++
		return c
	}
	r := runApplyWith(t, federationOf(), count, "-f", dir)
	require.NoError(t, r.err, r.errOut)
	for _, c := range clusterNames {
		assert.Equal(t, 1, built[c], "one client of %s for the run", c)
		assert.Equal(t, 2, r.requests.discoveries[c], "%s's types discovered once: GET /api and GET /apis", c)
		assert.Equal(t, int64(1), mustGet(t, c, deployGVR, ns, "web").Object["spec"].(map[string]any)["replicas"], "the plan was made: 1 in %s", c)
	}
}
