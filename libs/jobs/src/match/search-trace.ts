/** Which image a search's candidates were chosen for: the query as it is, or its upright copy (`uprightQuery`). */
export type TracedQuery = 'query' | 'upright';

/**
 * What a search weighed before it answered: the candidates of its votes and the images it placed by colour. Nothing
 * serves a request from it; the matching benchmark records it to tell, for every miss, whether the image was among the
 * candidates that a chance was given (the vote's, or the colour shortlist's) or a chance was given and failed.
 */
export interface SearchTrace {
  /** A vote's candidates, best first (the query's own vote, widened by its own-scale words, or its upright copy's). */
  voted(by: TracedQuery, filepaths: readonly string[]): void;
  /** The colour shortlist of `by` (`alikeInColour`) in the order its first were placed (by sets, or sets and shares), and those placed. */
  alikeInColour(by: TracedQuery, shortlist: readonly string[], placed: readonly string[]): void;
}
