package settings

import (
	"errors"
	"time"

	"github.com/spf13/pflag"
	"github.com/tpsmon/tpsmon/model"
)

// SLO is the capacity criteria: the config file's slo block, and --slo's terms over it.
type SLO struct {
	Terms        Value[string] // --slo: "user_tps_p50>=30,ttft_p95<=2s", each term over the file's
	UserTPSMin   Value[float64]
	TTFTP95Max   Value[time.Duration]
	ErrorRateMax Value[float64]
	TTFOP95Max   Value[time.Duration] // reasoning models: time to first answer token
	GoodputMin   Value[float64]       // the share of requests meeting the per-request SLO
}

// sloFlags registers --slo.
func (f *Flags) sloFlags(fs *pflag.FlagSet) {
	bind(fs, &f.Given.SLO.Terms, &f.Defaults.SLO.Terms, text, "slo", "",
		`capacity criteria, e.g. "user_tps_p50>=30,ttft_p95<=2s,error_rate<=1%" (the default); add goodput>=95% to ask that share of requests to meet ttft and tok/s each; reasoning models may add ttfo_p95<=10s (time to first answer token)`)
}

// sloFile is the config file's slo block.
type sloFile struct {
	UserTPSP50Min *sloNumber `yaml:"user_tps_p50_min"`
	TTFTP95Max    *posDur    `yaml:"ttft_p95_max"`
	ErrorRateMax  *rate      `yaml:"error_rate_max"`
	TTFOP95Max    *posDur    `yaml:"ttfo_p95_max"`
	GoodputMin    *rate      `yaml:"goodput_min"`
}

// layer is the block's keys as settings, each at its line.
func (s sloFile) layer(c *fileConfig) SLO {
	at := func(key string) Origin { return c.origin("slo." + key) }
	fraction := func(r rate) float64 { return float64(r) }
	return SLO{
		UserTPSMin:   opt(s.UserTPSP50Min, at("user_tps_p50_min"), func(n sloNumber) float64 { return float64(n) }),
		TTFTP95Max:   opt(s.TTFTP95Max, at("ttft_p95_max"), posDur.Duration),
		ErrorRateMax: opt(s.ErrorRateMax, at("error_rate_max"), fraction),
		TTFOP95Max:   opt(s.TTFOP95Max, at("ttfo_p95_max"), posDur.Duration),
		GoodputMin:   opt(s.GoodputMin, at("goodput_min"), fraction),
	}
}

// slo is the capacity criteria: the defaults, then the file's, then the terms of --slo
// over them. The file's criteria are judged by model.SLO.Validate, as --slo's are, and
// refused at their file and line.
func slo(s SLO) (model.SLO, error) {
	out := model.DefaultSLO
	s.UserTPSMin.into(&out.UserTPSMin)
	s.TTFTP95Max.into(&out.TTFTP95Max)
	s.ErrorRateMax.into(&out.ErrorRateMax)
	s.TTFOP95Max.into(&out.TTFOP95Max)
	s.GoodputMin.into(&out.GoodputMin)
	if err := out.Validate(); err != nil {
		var se *model.SLOError
		from := map[string]Origin{"user_tps_p50": s.UserTPSMin.From, "ttft_p95": s.TTFTP95Max.From, "error_rate": s.ErrorRateMax.From,
			"ttfo_p95": s.TTFOP95Max.From, "goodput": s.GoodputMin.From}
		if errors.As(err, &se) && from[se.Term].Where != "" {
			return out, errorf("%s: %v", from[se.Term].Where, err)
		}
		return out, errorf("slo: %v", err)
	}
	if s.Terms.V == "" {
		return out, nil
	}
	out, err := model.ParseSLOFrom(out, s.Terms.V)
	if err == nil {
		err = out.Validate()
	}
	if err != nil {
		return out, errorf("--slo: %v", err)
	}
	return out, nil
}
