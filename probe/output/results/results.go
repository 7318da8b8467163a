// Package results writes a run's results for programs: results.json (schema
// tpsmon.bench/v1, model.Report) and the CSV of its levels. The words people read are
// the report package's; the keys and columns are listed in docs/results.md.
package results

import (
	"encoding/json"

	"github.com/tpsmon/tpsmon/model"
)

// JSON is results.json: the report, indented, with a final newline.
func JSON(r *model.Report) ([]byte, error) {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}
