package sim_test

import (
	"context"
	"fmt"
	"log"

	"github.com/tpsmon/tpsmon/probe/sim"
)

func ExampleProfile() {
	c, err := sim.Profile(sim.DefaultProfile)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s: model %s, %d slots, step %g ms + %g ms per sequence\n",
		c.Name, c.Model, c.Slots, c.StepMs, c.StepMsPerSeq)
	fmt.Println(sim.ProfileNames())
	// Output:
	// datacenter: model sim-14b-h100, 32 slots, step 10 ms + 1 ms per sequence
	// [datacenter small-gpu fast flaky reasoning]
}

func ExampleStart() {
	cfg, _ := sim.Profile("small-gpu")
	inst, err := sim.Start(context.Background(), "", cfg) // 127.0.0.1, a free port
	if err != nil {
		log.Fatal(err)
	}
	defer inst.Close()
	fmt.Println("point an OpenAI client at", inst.URL, "with model", cfg.Model)
}
