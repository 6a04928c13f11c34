import './failures.css';

export { CompareFailures } from './Compare';
export { FailureTable } from './FailureTable';
export { FailureItem } from './FailureItem';
