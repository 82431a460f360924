package get

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/fedctl/fedctl/pkg/members"
)

// TestClusterTableNotes: a cordoned member reads as kubectl shows a
// cordoned node, and -o wide's MESSAGE says why and since when, then each
// migration away from it, then its health message.
func TestClusterTableNotes(t *testing.T) {
	ready := members.Health{Conditions: []members.Condition{{Type: members.ConditionReady, Status: "True", Message: "/healthz responded with ok"}}}
	list := ClusterList{Items: []Cluster{
		{Member: members.Member{Name: "eu-1", Cordoned: &members.Cordon{Reason: "upgrade", Since: "2026-11-25T08:00:00Z"},
			Migrations: []members.Migration{{Selector: "app=web", To: "us-1", Since: "2026-11-25T09:00:00Z"}}}, Status: ready},
		{Member: members.Member{Name: "us-1"}, Status: ready},
	}}
	table := clusterTable(list, []map[string]any{{}, {}}, false)
	assert.Equal(t, []any{"eu-1", "True,SchedulingDisabled", "", "eu-1", "<none>",
		"cordoned since 2026-11-25T08:00:00Z: upgrade; -l app=web migrated to us-1 since 2026-11-25T09:00:00Z; /healthz responded with ok"}, table.Rows[0].Cells)
	assert.Equal(t, []any{"us-1", "True", "", "us-1", "<none>", "/healthz responded with ok"}, table.Rows[1].Cells)
}

// TestClusterTableClusterAPI: with a member from Cluster API, PHASE follows
// VERSION and -o wide adds CONTROLPLANEREADY and INFRASTRUCTUREREADY; a
// member reached through a context has none of them (<none> when printed),
// and CONTEXT says capi:MGMT/NAMESPACE/CLUSTER in one word.
func TestClusterTableClusterAPI(t *testing.T) {
	ready := members.Health{Conditions: []members.Condition{{Type: members.ConditionReady, Status: "True", Message: "/healthz responded with ok"}}, KubernetesVersion: "v1.33.1"}
	capiReady := ready
	capiReady.ClusterAPI = &members.ClusterAPIStatus{Phase: "Provisioned", ControlPlaneReady: "True", InfrastructureReady: "False"}
	gone := members.Health{Conditions: []members.Condition{{Type: members.ConditionReady, Status: "False", Reason: members.ReasonClusterDeleted, Message: "Cluster capi/web-2 not found"}},
		ClusterAPI: &members.ClusterAPIStatus{Phase: members.CAPIPhaseNotFound}}
	list := ClusterList{Items: []Cluster{
		{Member: members.Member{Name: "eu-1"}, Status: ready},
		{Member: members.Member{Name: "web-1", CAPI: &members.CAPI{ManagementContext: "mgmt", Namespace: "capi", Cluster: "web-1"}, Labels: map[string]string{"env": "prod"}}, Status: capiReady},
		{Member: members.Member{Name: "web-2", CAPI: &members.CAPI{ManagementContext: "mgmt", Namespace: "capi", Cluster: "web-2"}}, Status: gone},
	}}
	table := clusterTable(list, []map[string]any{{}, {}, {}}, false)
	var headers []string
	for _, c := range table.Columns {
		headers = append(headers, c.Name)
	}
	assert.Equal(t, []string{"NAME", "READY", "VERSION", "PHASE", "CONTEXT", "LABELS", "CONTROLPLANEREADY", "INFRASTRUCTUREREADY", "MESSAGE"}, headers)
	assert.Equal(t, []any{"eu-1", "True", "v1.33.1", "", "eu-1", "<none>", "", "", "/healthz responded with ok"}, table.Rows[0].Cells)
	assert.Equal(t, []any{"web-1", "True", "v1.33.1", "Provisioned", "capi:mgmt/capi/web-1", "env=prod", "True", "False", "/healthz responded with ok"}, table.Rows[1].Cells)
	assert.Equal(t, []any{"web-2", "False", "", "NotFound", "capi:mgmt/capi/web-2", "<none>", "", "", "Cluster capi/web-2 not found"}, table.Rows[2].Cells)

	table = clusterTable(ClusterList{Items: list.Items[:1]}, []map[string]any{{}}, true)
	assert.Len(t, table.Columns, 5, "no Cluster API columns without a member from Cluster API: NAME READY VERSION CONTEXT MESSAGE (--show-labels adds LABELS itself)")
}
