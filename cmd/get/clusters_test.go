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
