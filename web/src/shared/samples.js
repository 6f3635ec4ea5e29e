// One real-world-shaped sample per supported language: several top-level definitions of different
// sizes, so the units, statements and HiRoPE's hierarchy have something to show.
import { CATALOGUE } from './core-catalogue.js';

export const SAMPLES = {
  python: `"""A small LRU cache with hit statistics, and a memoizing decorator built on it."""
from collections import OrderedDict
from functools import wraps

DEFAULT_CAPACITY = 128


class LRUCache:
    """Least-recently-used mapping with a fixed capacity."""

    def __init__(self, capacity=DEFAULT_CAPACITY):
        if capacity <= 0:
            raise ValueError("capacity must be positive")
        self.capacity = capacity
        self._data = OrderedDict()
        self.hits = 0
        self.misses = 0

    def get(self, key, default=None):
        if key in self._data:
            self._data.move_to_end(key)
            self.hits += 1
            return self._data[key]
        self.misses += 1
        return default

    def put(self, key, value):
        self._data[key] = value
        self._data.move_to_end(key)
        while len(self._data) > self.capacity:
            self._data.popitem(last=False)

    def hit_rate(self):
        total = self.hits + self.misses
        return self.hits / total if total else 0.0


def memoize(capacity=DEFAULT_CAPACITY):
    """Caches a function's results by its positional arguments."""
    def decorate(func):
        cache = LRUCache(capacity)

        @wraps(func)
        def wrapper(*args):
            result = cache.get(args)
            if result is None:
                result = func(*args)
                cache.put(args, result)
            return result

        wrapper.cache = cache
        return wrapper
    return decorate


@memoize(capacity=256)
def edit_distance(a, b):
    if not a:
        return len(b)
    if not b:
        return len(a)
    cost = 0 if a[-1] == b[-1] else 1
    return min(edit_distance(a[:-1], b) + 1,
               edit_distance(a, b[:-1]) + 1,
               edit_distance(a[:-1], b[:-1]) + cost)


if __name__ == "__main__":
    print(edit_distance("kitten", "sitting"))
    print(f"hit rate: {edit_distance.cache.hit_rate():.2%}")
`,
  javascript: `// Debounce and throttle helpers, and an event emitter that uses them.
export function debounce(fn, wait = 100) {
  let timer = null;
  return function debounced(...args) {
    clearTimeout(timer);
    timer = setTimeout(() => fn.apply(this, args), wait);
  };
}

export function throttle(fn, interval = 100) {
  let last = 0;
  let pending = null;
  return function throttled(...args) {
    const now = Date.now();
    if (now - last >= interval) {
      last = now;
      fn.apply(this, args);
    } else if (!pending) {
      pending = setTimeout(() => {
        pending = null;
        last = Date.now();
        fn.apply(this, args);
      }, interval - (now - last));
    }
  };
}

export class Emitter {
  #listeners = new Map();

  on(type, listener) {
    if (!this.#listeners.has(type)) this.#listeners.set(type, new Set());
    this.#listeners.get(type).add(listener);
    return () => this.off(type, listener);
  }

  off(type, listener) {
    this.#listeners.get(type)?.delete(listener);
  }

  emit(type, detail) {
    for (const listener of this.#listeners.get(type) ?? []) listener(detail);
  }
}

const resize = new Emitter();
window.addEventListener('resize', debounce(() => resize.emit('resize', window.innerWidth), 150));
`,
  typescript: `// A typed result type and a retrying fetch built on it.
export type Result<T, E = Error> = { ok: true; value: T } | { ok: false; error: E };

export interface RetryOptions {
  attempts: number;
  delayMs: number;
  factor?: number;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export async function retry<T>(task: () => Promise<T>, options: RetryOptions): Promise<Result<T>> {
  let delay = options.delayMs;
  let lastError: Error = new Error('no attempts made');
  for (let attempt = 0; attempt < options.attempts; attempt++) {
    try {
      return { ok: true, value: await task() };
    } catch (error) {
      lastError = error instanceof Error ? error : new Error(String(error));
      await sleep(delay);
      delay *= options.factor ?? 2;
    }
  }
  return { ok: false, error: lastError };
}

export class JsonClient {
  constructor(private readonly baseUrl: string, private readonly retries: RetryOptions) {}

  async get<T>(path: string): Promise<Result<T>> {
    return retry(async () => {
      const response = await fetch(new URL(path, this.baseUrl));
      if (!response.ok) throw new Error(\`HTTP \${response.status} for \${path}\`);
      return (await response.json()) as T;
    }, this.retries);
  }
}
`,
  tsx: `// A searchable list component with a debounced filter.
import { useEffect, useMemo, useState } from 'react';

interface Item {
  id: string;
  label: string;
}

function useDebounced<T>(value: T, delay: number): T {
  const [current, setCurrent] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setCurrent(value), delay);
    return () => clearTimeout(timer);
  }, [value, delay]);
  return current;
}

export function SearchList({ items }: { items: Item[] }) {
  const [query, setQuery] = useState('');
  const debounced = useDebounced(query, 200);
  const visible = useMemo(
    () => items.filter((item) => item.label.toLowerCase().includes(debounced.toLowerCase())),
    [items, debounced],
  );
  return (
    <section>
      <input value={query} onChange={(e) => setQuery(e.target.value)} placeholder="Filter" />
      <ul>
        {visible.map((item) => (
          <li key={item.id}>{item.label}</li>
        ))}
      </ul>
      <p>{visible.length} of {items.length}</p>
    </section>
  );
}
`,
  c: `/* A growable byte buffer with formatted appends. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    char *data;
    size_t length;
    size_t capacity;
} buffer;

static int buffer_reserve(buffer *b, size_t extra) {
    if (b->length + extra <= b->capacity) return 0;
    size_t capacity = b->capacity ? b->capacity * 2 : 64;
    while (capacity < b->length + extra) capacity *= 2;
    char *data = realloc(b->data, capacity);
    if (!data) return -1;
    b->data = data;
    b->capacity = capacity;
    return 0;
}

int buffer_append(buffer *b, const char *text, size_t n) {
    if (buffer_reserve(b, n + 1) != 0) return -1;
    memcpy(b->data + b->length, text, n);
    b->length += n;
    b->data[b->length] = '\\0';
    return 0;
}

int buffer_printf(buffer *b, const char *format, ...) {
    va_list args;
    va_start(args, format);
    int n = vsnprintf(NULL, 0, format, args);
    va_end(args);
    if (n < 0 || buffer_reserve(b, (size_t)n + 1) != 0) return -1;
    va_start(args, format);
    vsnprintf(b->data + b->length, (size_t)n + 1, format, args);
    va_end(args);
    b->length += (size_t)n;
    return n;
}

void buffer_free(buffer *b) {
    free(b->data);
    b->data = NULL;
    b->length = b->capacity = 0;
}
`,
  cpp: `// A fixed-capacity ring buffer and a moving average built on it.
#include <array>
#include <cstddef>
#include <optional>

namespace stats {

template <typename T, std::size_t N>
class RingBuffer {
public:
    bool push(const T& value) {
        data_[(head_ + size_) % N] = value;
        if (size_ < N) {
            ++size_;
            return true;
        }
        head_ = (head_ + 1) % N;
        return false;
    }

    std::optional<T> pop() {
        if (size_ == 0) return std::nullopt;
        T value = data_[head_];
        head_ = (head_ + 1) % N;
        --size_;
        return value;
    }

    std::size_t size() const { return size_; }
    const T& operator[](std::size_t i) const { return data_[(head_ + i) % N]; }

private:
    std::array<T, N> data_{};
    std::size_t head_ = 0;
    std::size_t size_ = 0;
};

template <std::size_t N>
double moving_average(const RingBuffer<double, N>& window) {
    if (window.size() == 0) return 0.0;
    double sum = 0.0;
    for (std::size_t i = 0; i < window.size(); ++i) sum += window[i];
    return sum / static_cast<double>(window.size());
}

}  // namespace stats
`,
  java: `// A token-bucket rate limiter.
package example.limits;

import java.time.Clock;

public final class TokenBucket {
    private final long capacity;
    private final double refillPerNano;
    private final Clock clock;
    private double tokens;
    private long lastRefill;

    public TokenBucket(long capacity, double perSecond, Clock clock) {
        if (capacity <= 0 || perSecond <= 0) {
            throw new IllegalArgumentException("capacity and rate must be positive");
        }
        this.capacity = capacity;
        this.refillPerNano = perSecond / 1_000_000_000.0;
        this.clock = clock;
        this.tokens = capacity;
        this.lastRefill = now();
    }

    private long now() {
        return clock.instant().toEpochMilli() * 1_000_000L;
    }

    private void refill() {
        long current = now();
        tokens = Math.min(capacity, tokens + (current - lastRefill) * refillPerNano);
        lastRefill = current;
    }

    public synchronized boolean tryAcquire(int permits) {
        refill();
        if (tokens < permits) {
            return false;
        }
        tokens -= permits;
        return true;
    }

    public synchronized double available() {
        refill();
        return tokens;
    }
}
`,
  go: `// Package wordcount counts words concurrently over a set of files.
package wordcount

import (
	"bufio"
	"os"
	"sort"
	"strings"
	"sync"
)

type Count struct {
	Word  string
	Times int
}

func countFile(path string) (map[string]int, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	counts := make(map[string]int)
	scanner := bufio.NewScanner(f)
	scanner.Split(bufio.ScanWords)
	for scanner.Scan() {
		counts[strings.ToLower(scanner.Text())]++
	}
	return counts, scanner.Err()
}

func CountFiles(paths []string) ([]Count, error) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	total := make(map[string]int)
	errs := make(chan error, len(paths))
	for _, p := range paths {
		wg.Add(1)
		go func(path string) {
			defer wg.Done()
			counts, err := countFile(path)
			if err != nil {
				errs <- err
				return
			}
			mu.Lock()
			for w, n := range counts {
				total[w] += n
			}
			mu.Unlock()
		}(p)
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return nil, err
	}
	out := make([]Count, 0, len(total))
	for w, n := range total {
		out = append(out, Count{w, n})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Times > out[j].Times })
	return out, nil
}
`,
  rust: `// An interval set that merges overlapping ranges.
use std::fmt;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Interval {
    pub start: i64,
    pub end: i64,
}

impl Interval {
    pub fn new(start: i64, end: i64) -> Option<Self> {
        if start <= end { Some(Interval { start, end }) } else { None }
    }

    fn overlaps(&self, other: &Interval) -> bool {
        self.start <= other.end && other.start <= self.end
    }
}

#[derive(Default)]
pub struct IntervalSet {
    items: Vec<Interval>,
}

impl IntervalSet {
    pub fn insert(&mut self, mut interval: Interval) {
        let mut kept = Vec::with_capacity(self.items.len() + 1);
        for item in self.items.drain(..) {
            if item.overlaps(&interval) {
                interval.start = interval.start.min(item.start);
                interval.end = interval.end.max(item.end);
            } else {
                kept.push(item);
            }
        }
        kept.push(interval);
        kept.sort_by_key(|i| i.start);
        self.items = kept;
    }

    pub fn contains(&self, x: i64) -> bool {
        self.items.iter().any(|i| i.start <= x && x <= i.end)
    }
}

impl fmt::Display for IntervalSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> = self.items.iter().map(|i| format!("[{}, {}]", i.start, i.end)).collect();
        write!(f, "{}", parts.join(" "))
    }
}
`,
};

// Display names of the languages the core parses (its catalogue).
export const LANGUAGE_NAMES = Object.fromEntries(CATALOGUE.languages.map((l) => [l.name, l.label]));
