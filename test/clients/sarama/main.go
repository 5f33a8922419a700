// A small Sarama (Go, Debian's golang-github-shopify-sarama-dev 1.22) client for gregor's
// compatibility tests: produce, consume partitions, or consume in a consumer group, at a chosen
// protocol version. Values go to stdout one per line; any error exits non-zero.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/Shopify/sarama"
)

func fail(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, format+"\n", args...)
	os.Exit(1)
}

func config(version string, compression string) *sarama.Config {
	c := sarama.NewConfig()
	c.ClientID = "gregor-sarama-test"
	if version != "default" {
		v, err := sarama.ParseKafkaVersion(version)
		if err != nil {
			fail("bad version %s: %v", version, err)
		}
		c.Version = v
	}
	c.Producer.Return.Successes = true
	c.Producer.RequiredAcks = sarama.WaitForAll
	c.Producer.Retry.Max = 10
	c.Producer.Retry.Backoff = 200 * time.Millisecond
	switch compression {
	case "none", "":
	case "gzip":
		c.Producer.Compression = sarama.CompressionGZIP
	case "snappy":
		c.Producer.Compression = sarama.CompressionSnappy
	case "lz4":
		c.Producer.Compression = sarama.CompressionLZ4
	case "zstd":
		c.Producer.Compression = sarama.CompressionZSTD
	default:
		fail("unknown compression %s", compression)
	}
	c.Consumer.Offsets.Initial = sarama.OffsetOldest
	c.Consumer.Return.Errors = true
	c.Metadata.Retry.Max = 20
	c.Metadata.Retry.Backoff = 250 * time.Millisecond
	return c
}

func main() {
	brokers := flag.String("brokers", "127.0.0.1:9092", "bootstrap brokers, comma separated")
	topic := flag.String("topic", "", "topic")
	group := flag.String("group", "", "consumer group (mode group)")
	n := flag.Int("n", 100, "records to produce or to read")
	version := flag.String("version", "default", "Kafka protocol version (default: Sarama's own default)")
	compression := flag.String("compression", "none", "none|gzip|snappy|lz4|zstd")
	prefix := flag.String("prefix", "v", "value prefix for produce")
	timeout := flag.Duration("timeout", 60*time.Second, "give up after this long")
	flag.Parse()
	if len(flag.Args()) != 1 || *topic == "" {
		fail("usage: sarama-client [flags] produce|consume|group")
	}
	c := config(*version, *compression)
	addrs := strings.Split(*brokers, ",")
	fmt.Fprintf(os.Stderr, "sarama version %s\n", c.Version)
	switch flag.Arg(0) {
	case "produce":
		produce(addrs, c, *topic, *n, *prefix)
	case "consume":
		consume(addrs, c, *topic, *n, *timeout)
	case "group":
		consumeGroup(addrs, c, *topic, *group, *n, *timeout)
	default:
		fail("unknown mode %s", flag.Arg(0))
	}
}

func produce(addrs []string, c *sarama.Config, topic string, n int, prefix string) {
	p, err := sarama.NewSyncProducer(addrs, c)
	if err != nil {
		fail("producer: %v", err)
	}
	defer p.Close()
	msgs := make([]*sarama.ProducerMessage, 0, n)
	for i := 0; i < n; i++ {
		msgs = append(msgs, &sarama.ProducerMessage{Topic: topic, Key: sarama.StringEncoder(fmt.Sprintf("k%d", i%7)), Value: sarama.StringEncoder(fmt.Sprintf("%s%d", prefix, i))})
	}
	// In chunks, so batches (and compressed wrappers) hold several messages.
	for start := 0; start < n; start += 50 {
		end := start + 50
		if end > n {
			end = n
		}
		if err := p.SendMessages(msgs[start:end]); err != nil {
			fail("send: %v", err)
		}
	}
	for _, m := range msgs {
		if m.Offset < 0 {
			fail("message %v has no offset", m.Value)
		}
	}
	fmt.Printf("acked %d\n", n)
}

func consume(addrs []string, c *sarama.Config, topic string, n int, timeout time.Duration) {
	consumer, err := sarama.NewConsumer(addrs, c)
	if err != nil {
		fail("consumer: %v", err)
	}
	defer consumer.Close()
	partitions, err := consumer.Partitions(topic)
	if err != nil {
		fail("partitions: %v", err)
	}
	out := make(chan string, n)
	errs := make(chan error, 16)
	for _, p := range partitions {
		pc, err := consumer.ConsumePartition(topic, p, sarama.OffsetOldest)
		if err != nil {
			fail("consume partition %d: %v", p, err)
		}
		defer pc.Close()
		go func(pc sarama.PartitionConsumer) {
			for {
				select {
				case m, ok := <-pc.Messages():
					if !ok {
						return
					}
					out <- fmt.Sprintf("%d:%d:%s:%s", m.Partition, m.Offset, string(m.Key), string(m.Value))
				case e, ok := <-pc.Errors():
					if ok {
						errs <- e
					}
				}
			}
		}(pc)
	}
	collect(out, errs, n, timeout)
}

type handler struct {
	out chan string
}

func (h handler) Setup(sarama.ConsumerGroupSession) error   { return nil }
func (h handler) Cleanup(sarama.ConsumerGroupSession) error { return nil }
func (h handler) ConsumeClaim(s sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	for m := range claim.Messages() {
		h.out <- fmt.Sprintf("%d:%d:%s:%s", m.Partition, m.Offset, string(m.Key), string(m.Value))
		s.MarkMessage(m, "")
	}
	return nil
}

func consumeGroup(addrs []string, c *sarama.Config, topic, group string, n int, timeout time.Duration) {
	c.Consumer.Offsets.CommitInterval = 100 * time.Millisecond
	g, err := sarama.NewConsumerGroup(addrs, group, c)
	if err != nil {
		fail("consumer group: %v", err)
	}
	out := make(chan string, n+1000)
	errs := make(chan error, 16)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for ctx.Err() == nil {
			if err := g.Consume(ctx, []string{topic}, handler{out}); err != nil {
				errs <- err
				return
			}
		}
	}()
	go func() {
		for e := range g.Errors() {
			errs <- e
		}
	}()
	collect(out, errs, n, timeout)
	cancel()
	wg.Wait()
	if err := g.Close(); err != nil {
		fail("close: %v", err)
	}
}

func collect(out chan string, errs chan error, n int, timeout time.Duration) {
	deadline := time.After(timeout)
	got := make([]string, 0, n)
	for len(got) < n {
		select {
		case v := <-out:
			got = append(got, v)
		case e := <-errs:
			fail("error after %d records: %v", len(got), e)
		case <-deadline:
			fail("timed out with %d of %d records", len(got), n)
		}
	}
	sort.Strings(got)
	for _, v := range got {
		fmt.Println(v)
	}
}
