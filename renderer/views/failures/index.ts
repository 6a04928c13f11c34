import './failures.css';

export { CompareFailures, FailureTable } from './FailureTable';
export { FailureItem } from './FailureItem';
