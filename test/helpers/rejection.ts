/** The error `promise` rejects with; fails the test when it resolves. */
export async function rejectionOf<T = Error>(promise: Promise<unknown>): Promise<T> {
	try {
		await promise;
	} catch (error) {
		return error as T;
	}
	throw new Error('expected a rejection');
}
