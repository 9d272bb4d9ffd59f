//! The few latest answers to a question asked again and again, most recent first: a folder's
//! files come together, and specs name the same few experiments. Comparing a few keys costs
//! less than hashing one. A worker keeps its own in its scratch, so no lock.

/// At most `N` answers, by key, the most recently used first.
#[derive(Debug)]
pub struct Recent<K, V, const N: usize> {
    answers: Vec<(K, V)>,
}

impl<K, V, const N: usize> Default for Recent<K, V, N> {
    fn default() -> Self {
        Recent {
            answers: Vec::new(),
        }
    }
}

impl<K, V: Clone, const N: usize> Recent<K, V, N> {
    /// The answer kept for the key `is_key` accepts, moved to the front.
    pub fn get(&mut self, is_key: impl Fn(&K) -> bool) -> Option<V> {
        let at = self.answers.iter().position(|(k, _)| is_key(k))?;
        self.answers[..=at].rotate_right(1);
        Some(self.answers[0].1.clone())
    }

    /// The answer kept for the key `is_key` accepts, forgotten.
    pub fn take(&mut self, is_key: impl Fn(&K) -> bool) -> Option<V> {
        let at = self.answers.iter().position(|(k, _)| is_key(k))?;
        Some(self.answers.remove(at).1)
    }

    /// Whether no answer is kept.
    pub fn is_empty(&self) -> bool {
        self.answers.is_empty()
    }

    /// Keeps `value` as the answer for `key`, first; the oldest answer goes when full.
    pub fn put(&mut self, key: K, value: V) {
        if self.answers.len() == N {
            self.answers.pop();
        }
        self.answers.insert(0, (key, value));
    }

    /// Forgets every answer.
    pub fn clear(&mut self) {
        self.answers.clear();
    }
}
